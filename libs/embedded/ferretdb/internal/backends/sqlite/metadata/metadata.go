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

// Package metadata provides access to databases and collections information.
package metadata

import "github.com/FerretDB/FerretDB/internal/backends"

// Collection will probably have a method for getting column name / SQLite path expression for the given document field
// once we implement field extraction.
// IDColumn probably should go away.
// TODO https://github.com/FerretDB/FerretDB/issues/226

const (
	// DefaultColumn is a column name for all fields.
	DefaultColumn = backends.ReservedPrefix + "sjson"

	// IDColumn is a SQLite path expression for _id field.
	//
	// docspub patch: the expression of the _id_ index indexesCreate makes
	// (DefaultColumn->"_id"), so that SQLite finds, updates and deletes by
	// _id through that index instead of scanning the table (upstream's
	// ->'$._id' selects the same value but is not the indexed expression).
	IDColumn = DefaultColumn + `->"_id"`

	// IDValueColumn is, in the tables made since it exists (the collection's
	// Settings.IDInColumn), the column holding the _id as IDColumn gives it
	// (sjson.MarshalSingleValue), the one the _id_ index is on.
	//
	// docspub patch: an index on IDColumn made SQLite parse a document's
	// whole JSON text whenever it wrote or deleted it, to find its index
	// entry: half the time of a 4 MiB document's insert and delete
	// (libs/embedded BenchmarkLargeDocument).
	IDValueColumn = backends.ReservedPrefix + "id"

	// RecordIDColumn is a name for RecordID column to store capped collection record id.
	RecordIDColumn = backends.ReservedPrefix + "record_id"
)

// Collection represents collection metadata.
//
// Collection value should be immutable to avoid data races.
// Use [deepCopy] to replace the whole value instead of modifying fields of existing value.
type Collection struct {
	Name      string
	TableName string
	Settings  Settings
}

// IDExpr returns the SQL expression of the _id in c's table:
// IDValueColumn when the table has it, else IDColumn.
func (c *Collection) IDExpr() string {
	if c.Settings.IDInColumn {
		return IDValueColumn
	}

	return IDColumn
}

// Capped returns true if collection is capped.
func (c Collection) Capped() bool {
	return c.Settings.CappedSize > 0
}

// deepCopy returns a deep copy.
func (c *Collection) deepCopy() *Collection {
	if c == nil {
		return nil
	}

	return &Collection{
		Name:      c.Name,
		TableName: c.TableName,
		Settings:  c.Settings.deepCopy(),
	}
}
