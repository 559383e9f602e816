// Copyright 2021 FerretDB Inc.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

// This file is the docspub patch (see PATCH.md at the module's root): it is
// not in FerretDB v1.24.2.
package metadata

import (
	"fmt"
	"regexp"
	"strings"
)

// plainField is a top-level field name a JSON path takes unquoted.
var plainField = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// ValueColumn is the SQL value of top-level field f (->>): TEXT for a
// string or an ObjectID, INTEGER for an integer or a boolean (0, 1), NULL
// for a null or none. Of one kind of value, it sorts as MongoDB sorts them
// (strings by their bytes, integers as numbers), which FerretDB's index
// expressions, the JSON texts (->), do not. f must be plain (PlainField).
func ValueColumn(f string) string {
	return fmt.Sprintf(`%s->>'$.%s'`, DefaultColumn, f)
}

// PlainField reports whether f is a top-level field ValueColumn takes.
func PlainField(f string) bool { return plainField.MatchString(f) }

// ValueIndexName is the SQLite name of index's twin on table.
func ValueIndexName(table, index string) string { return table + "_" + index + "$values" }

// valueIndex is the statement creating the twin of index on table, over
// ValueColumn of each field, "" when a field is not plain, and for an index
// of one field: the twins serve the sorted pages of a tenant (an index led
// by the tenant, then the sort), and each costs every write.
func valueIndex(table string, index IndexInfo) string {
	if len(index.Key) < 2 {
		return ""
	}

	columns := make([]string, len(index.Key))

	for i, key := range index.Key {
		if !PlainField(key.Field) {
			return ""
		}

		columns[i] = ValueColumn(key.Field)
		if key.Descending {
			columns[i] += " DESC"
		}
	}

	return fmt.Sprintf("CREATE INDEX IF NOT EXISTS %q ON %q (%s)", ValueIndexName(table, index.Name), table, strings.Join(columns, ", "))
}
