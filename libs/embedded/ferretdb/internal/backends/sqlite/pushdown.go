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

package sqlite

import (
	"fmt"
	"strings"

	"github.com/FerretDB/FerretDB/internal/backends/sqlite/metadata"
	"github.com/FerretDB/FerretDB/internal/handler/sjson"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/must"
)

// Bounds of what is pushed down; past them the handler alone filters (or a
// part of an AND is left out, which still gives a superset). SQLite bounds
// its variables and the depth of an expression (1,000): an $or of n
// branches nests n deep.
const (
	maxPushdownIn    = 1000 // values of one $in
	maxPushdownOr    = 64   // branches of one $or
	maxPushdownAnd   = 16   // conditions joined by AND at one level
	maxPushdownDepth = 4    // nesting of $and and $or
)

// prepareWhereClause returns a WHERE clause (with its leading space, or "")
// and its arguments that narrow the rows a query reads to a superset of those
// the filter matches. The handler filters every row again, so a condition
// pushed down may let more rows through than match, never fewer.
//
// Conditions come from the filter's top level, its $and and its $or (an $or
// only when each of its branches gives one):
//   - _id equal to a string or an ObjectID, or $eq or $in of those: exact (an
//     _id is never an array), served by the _id_ index;
//   - a field that leads one of the collection's indexes, equal to a string,
//     an ObjectID or a boolean, $eq or $in of those, or {$exists: true},
//     served by that index. MongoDB's equality also matches an array holding
//     the value, so an equality lets every array through too: JSON text
//     starting with '[', a range of the same index.
//
// Of those, one kind is pushed down, the most selective: _id (one of them);
// else the equalities on strings (an identifier: an organization, a space);
// else the others (flags, $exists, $or). SQLite then picks among indexes of
// one kind, not a flag's index over a tenant's.
//
// The values compare as the JSON text SQLite's -> gives, which is the text
// sjson stored: MarshalSingleValue writes a value as Marshal writes it in a
// document.
//
// docspub patch: id is the SQL expression of the _id in the table
// (metadata.Collection.IDExpr).
func prepareWhereClause(filter *types.Document, indexes []metadata.IndexInfo, id string) (string, []any) {
	if filter.Len() == 0 {
		return "", nil
	}

	ix := indexed{id: id, leading: map[string]bool{}}
	for _, index := range indexes {
		if len(index.Key) > 0 && !strings.Contains(index.Key[0].Field, ".") {
			ix.leading[index.Key[0].Field] = true
		}
	}

	c, ok := chooseConditions(filter, ix, 0)
	if !ok {
		return "", nil
	}

	return " WHERE " + c.sql, c.args
}

// indexed is what a table's indexes serve: its _id's expression, and the
// fields that lead one of its indexes.
type indexed struct {
	id      string
	leading map[string]bool
}

// condition is pushed-down SQL and its arguments.
type condition struct {
	sql  string
	args []any
}

// The kinds of conditions, most selective first.
const (
	byID = iota
	byString
	byOther
	kinds
)

// chooseConditions returns the conditions of filter's most selective kind,
// joined by AND; ok is false when filter gives none. depth bounds the
// nesting of $and and $or.
func chooseConditions(filter *types.Document, ix indexed, depth int) (condition, bool) {
	var found [kinds][]condition
	collectConditions(filter, ix, depth, &found)

	for kind, conds := range found {
		if len(conds) == 0 {
			continue
		}

		if kind == byID {
			return conds[0], true
		}

		return join(conds[:min(len(conds), maxPushdownAnd)], " AND "), true
	}

	return condition{}, false
}

// collectConditions adds to found the conditions of filter's top level and
// of its $and and $or, by kind.
func collectConditions(filter *types.Document, ix indexed, depth int, found *[kinds][]condition) {
	if depth > maxPushdownDepth {
		return
	}

	iter := filter.Iterator()
	defer iter.Close()

	for {
		k, v, err := iter.Next()
		if err != nil {
			return
		}

		switch {
		case k == "$and":
			ds, _ := subfilters(v)
			for _, d := range ds {
				collectConditions(d, ix, depth+1, found)
			}

		case k == "$or":
			ds, ok := subfilters(v)
			if !ok || len(ds) > maxPushdownOr {
				continue
			}

			if c, ok := anyOf(ds, ix, depth+1); ok {
				found[byOther] = append(found[byOther], c)
			}

		case k == "_id":
			if texts, kind := equalTexts(v); kind == byString {
				found[byID] = append(found[byID], inCondition(ix.id, texts, false))
			}

		case ix.leading[k] && !strings.HasPrefix(k, "$"):
			column := fmt.Sprintf("%s->%q", metadata.DefaultColumn, k)
			if exists(v) {
				// IS NOT NULL as a range of both ends (any JSON text sorts
				// after '' and before any blob), which SQLite's planner
				// serves from the index instead of scanning.
				found[byOther] = append(found[byOther], condition{sql: fmt.Sprintf("%s >= '' AND %s < x''", column, column)})
				continue
			}

			if texts, kind := equalTexts(v); len(texts) > 0 {
				found[kind] = append(found[kind], inCondition(column, texts, true))
			}
		}
	}
}

// anyOf is the OR of the branches' conditions, if each branch gives one.
func anyOf(branches []*types.Document, ix indexed, depth int) (condition, bool) {
	if len(branches) == 0 {
		return condition{}, false
	}

	conds := make([]condition, 0, len(branches))

	for _, b := range branches {
		c, ok := chooseConditions(b, ix, depth)
		if !ok {
			return condition{}, false
		}

		conds = append(conds, c)
	}

	return join(conds, " OR "), true
}

// join joins conditions with op, each in parentheses.
func join(conds []condition, op string) condition {
	if len(conds) == 1 {
		return conds[0]
	}

	var out condition
	sqls := make([]string, 0, len(conds))

	for _, c := range conds {
		sqls = append(sqls, "("+c.sql+")")
		out.args = append(out.args, c.args...)
	}

	out.sql = strings.Join(sqls, op)

	return out
}

// subfilters returns the documents of an $and's or an $or's array; ok is
// false when it is no array or holds something else (an $or missing a
// branch would give fewer rows, not more).
func subfilters(v any) ([]*types.Document, bool) {
	arr, ok := v.(*types.Array)
	if !ok {
		return nil, false
	}

	out := make([]*types.Document, 0, arr.Len())

	for i := 0; i < arr.Len(); i++ {
		d, ok := must.NotFail(arr.Get(i)).(*types.Document)
		if !ok {
			return out, false
		}

		out = append(out, d)
	}

	return out, true
}

// exists reports whether v is {$exists: true}.
func exists(v any) bool {
	d, ok := v.(*types.Document)
	if !ok || d.Len() != 1 {
		return false
	}

	b, ok := must.NotFail(d.Get(d.Keys()[0])).(bool)

	return ok && b && d.Keys()[0] == "$exists"
}

// inCondition is column equal to one of texts, or, with arrays, any array.
func inCondition(column string, texts []any, arrays bool) condition {
	sql := column + " = ?"
	if len(texts) > 1 {
		sql = column + " IN (?" + strings.Repeat(", ?", len(texts)-1) + ")"
	}

	if arrays {
		sql = fmt.Sprintf(`%s OR (%s >= '[' AND %s < '\')`, sql, column, column)
	}

	return condition{sql: sql, args: texts}
}

// equalTexts returns the JSON texts v's equality matches when v is a
// string, an ObjectID or a boolean, {$eq: one of those}, or {$in: [those]},
// and their kind: byString for strings and ObjectIDs, byOther for booleans
// (nil otherwise).
func equalTexts(v any) ([]any, int) {
	if text, kind, ok := scalarText(v); ok {
		return []any{text}, kind
	}

	d, ok := v.(*types.Document)
	if !ok || d.Len() != 1 {
		return nil, byOther
	}

	switch k := d.Keys()[0]; k {
	case "$eq":
		if text, kind, ok := scalarText(must.NotFail(d.Get(k))); ok {
			return []any{text}, kind
		}

	case "$in":
		arr, ok := must.NotFail(d.Get(k)).(*types.Array)
		if !ok || arr.Len() == 0 || arr.Len() > maxPushdownIn {
			return nil, byOther
		}

		texts := make([]any, 0, arr.Len())
		kind := byString

		for i := 0; i < arr.Len(); i++ {
			text, k, ok := scalarText(must.NotFail(arr.Get(i)))
			if !ok {
				return nil, byOther
			}

			texts = append(texts, text)
			kind = max(kind, k)
		}

		return texts, kind
	}

	return nil, byOther
}

// scalarText returns the JSON text of a string, an ObjectID or a boolean,
// and its kind.
func scalarText(v any) (string, int, bool) {
	switch v.(type) {
	case string, types.ObjectID:
		return string(must.NotFail(sjson.MarshalSingleValue(v))), byString, true
	case bool:
		return string(must.NotFail(sjson.MarshalSingleValue(v))), byOther, true
	default:
		return "", 0, false
	}
}
