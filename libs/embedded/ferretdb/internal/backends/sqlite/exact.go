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
	"context"
	"database/sql"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/FerretDB/FerretDB/internal/backends"
	"github.com/FerretDB/FerretDB/internal/backends/sqlite/metadata"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/fsql"
	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
	"github.com/FerretDB/FerretDB/internal/util/must"
)

// ExactOff turns the exact pushdown off (tests compare its answers with the
// handler's own); ExactAnswers counts the queries it answered.
var (
	ExactOff     atomic.Bool
	ExactAnswers atomic.Int64
)

// maxExactLimit bounds the limits pushed down.
const maxExactLimit = 10000

// fieldKind is what one top-level field holds over every document of a
// collection.
type fieldKind int

const (
	kindNone     fieldKind = iota // no value, or only nulls
	kindString                    // strings (and nulls)
	kindObjectID                  // ObjectIDs (and nulls)
	kindBool                      // booleans (and nulls)
	kindInt                       // int32s and int64s (and nulls)
	kindMixed                     // anything else: arrays, documents, other types, or two kinds
)

// fieldState is what a collection's documents hold in one field: with one
// kind of scalar (and nulls), a condition on the field's SQL values
// (metadata.ValueColumn) is exactly MongoDB's (no array holds the value, no
// other type has the same SQL value) and they sort as MongoDB sorts them.
type fieldState struct {
	kind fieldKind
}

// add records a value of sjson's schema type typ ("" for none).
func (s *fieldState) add(typ string) {
	var k fieldKind

	switch typ {
	case "", "null":
		return
	case "string":
		k = kindString
	case "objectId":
		k = kindObjectID
	case "bool":
		k = kindBool
	case "int", "long":
		k = kindInt
	default:
		k = kindMixed
	}

	if s.kind == kindNone {
		s.kind = k
	} else if s.kind != k {
		s.kind = kindMixed
	}
}

// valueType is sjson's schema type of v, for the kinds fieldState tells
// apart ("other" for the rest).
func valueType(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case types.ObjectID:
		return "objectId"
	case bool:
		return "bool"
	case int32:
		return "int"
	case int64:
		return "long"
	case types.NullType:
		return "null"
	default:
		return "other"
	}
}

// tableState is what is known of the fields of one table: a field is
// known once a scan read it (fieldStates); every write through this
// backend adds its documents to the known fields, before its statement (so
// that a query that began before sees the change when it checks again)
// and after (so that a scan running meanwhile misses nothing).
type tableState struct {
	mu     sync.Mutex
	fields map[string]*fieldState
}

// tableKey names a table of a backend.
type tableKey struct {
	r         *metadata.Registry
	db, table string
}

var tableStates sync.Map // tableKey → *tableState

// stateOf returns the state of a table.
func stateOf(r *metadata.Registry, db, table string) *tableState {
	s, _ := tableStates.LoadOrStore(tableKey{r, db, table}, &tableState{fields: map[string]*fieldState{}})
	return s.(*tableState)
}

// observe adds docs to the known fields.
func (s *tableState) observe(docs []*types.Document) {
	s.mu.Lock()
	defer s.mu.Unlock()

	for field, st := range s.fields {
		for _, d := range docs {
			if v, err := d.Get(field); err == nil {
				st.add(valueType(v))
			}
		}
	}
}

// snapshot returns the states of fields, reading the unknown ones from the
// table (in one pass).
func (s *tableState) snapshot(ctx context.Context, db *fsql.DB, table string, fields []string) (map[string]fieldState, error) {
	s.mu.Lock()
	defer s.mu.Unlock()

	var unknown []string

	for _, f := range fields {
		if _, ok := s.fields[f]; !ok && !slices.Contains(unknown, f) {
			unknown = append(unknown, f)
		}
	}

	if len(unknown) > 0 {
		states, err := scanFields(ctx, db, table, unknown)
		if err != nil {
			return nil, err
		}

		for i, f := range unknown {
			s.fields[f] = states[i]
		}
	}

	out := make(map[string]fieldState, len(fields))
	for _, f := range fields {
		out[f] = *s.fields[f]
	}

	return out, nil
}

// unchanged reports whether the fields are still as in snap.
func (s *tableState) unchanged(snap map[string]fieldState) bool {
	s.mu.Lock()
	defer s.mu.Unlock()

	for f, st := range snap {
		if cur, ok := s.fields[f]; !ok || *cur != st {
			return false
		}
	}

	return true
}

// scanFields reads what every document of table holds in fields (plain
// ones): their types, as sjson's schema gives them.
func scanFields(ctx context.Context, db *fsql.DB, table string, fields []string) ([]*fieldState, error) {
	columns := make([]string, len(fields))
	for i, f := range fields {
		columns[i] = fmt.Sprintf(`%s->>'$."$s".p.%s.t'`, metadata.DefaultColumn, f)
	}

	rows, err := db.QueryContext(ctx, fmt.Sprintf(`SELECT %s FROM %q`, strings.Join(columns, ", "), table))
	if err != nil {
		return nil, lazyerrors.Error(err)
	}
	defer rows.Close()

	states := make([]*fieldState, len(fields))
	names := make([]sql.NullString, len(fields))
	dest := make([]any, len(fields))

	for i := range fields {
		states[i], dest[i] = new(fieldState), &names[i]
	}

	for rows.Next() {
		if err = rows.Scan(dest...); err != nil {
			return nil, lazyerrors.Error(err)
		}

		for i, typ := range names {
			states[i].add(typ.String)
		}
	}

	if err = rows.Err(); err != nil {
		return nil, lazyerrors.Error(err)
	}

	return states, nil
}

// exactField reports whether f is a field whose state is kept: a plain
// top-level field of one of the indexes.
func exactField(f string, indexes []metadata.IndexInfo) bool {
	for _, index := range indexes {
		for _, k := range index.Key {
			if k.Field == f && metadata.PlainField(f) {
				return true
			}
		}
	}

	return false
}

// exactTerm is one condition of a filter: on one field, or an $or of
// alternatives (each the conditions of one of its filters).
type exactTerm struct {
	field string
	value any
	or    [][]exactTerm
}

// exactTerms returns the conditions of filter, its top level's and its
// $and's, and its $or's as alternatives (a keyset page after the first:
// {$or: [{position: {$gt: p}}, {position: p, _id: {$gt: id}}]}); ok is
// false for any other operator.
func exactTerms(filter *types.Document, depth int) ([]exactTerm, bool) {
	var out []exactTerm

	for _, k := range filter.Keys() {
		v := must.NotFail(filter.Get(k))

		if k != "$and" && k != "$or" {
			out = append(out, exactTerm{field: k, value: v})
			continue
		}

		ds, ok := subfilters(v)
		if !ok || len(ds) == 0 || depth > maxPushdownDepth {
			return nil, false
		}

		var alts [][]exactTerm

		for _, d := range ds {
			terms, ok := exactTerms(d, depth+1)
			if !ok || (k == "$or" && len(terms) == 0) {
				return nil, false
			}

			if k == "$and" {
				out = append(out, terms...)
			} else {
				alts = append(alts, terms)
			}
		}

		if k == "$or" {
			out = append(out, exactTerm{field: k, or: alts})
		}
	}

	return out, true
}

// termFields appends the fields terms name, their alternatives' included.
func termFields(fields []string, terms []exactTerm) []string {
	for _, t := range terms {
		if t.or == nil {
			fields = append(fields, t.field)
			continue
		}

		for _, alt := range t.or {
			fields = termFields(fields, alt)
		}
	}

	return fields
}

// kindOf is the kind of a filter's value and its SQL value (as
// metadata.ValueColumn gives it), kindMixed for one not pushed down.
func kindOf(v any) (fieldKind, any) {
	switch v := v.(type) {
	case string:
		return kindString, v
	case types.ObjectID:
		return kindObjectID, hex.EncodeToString(v[:])
	case bool:
		if v {
			return kindBool, int64(1)
		}

		return kindBool, int64(0)
	case int32:
		return kindInt, int64(v)
	case int64:
		return kindInt, v
	default:
		return kindMixed, nil
	}
}

// exactCondition translates a condition on a field in state st; ne is
// the SQL value of v's {$ne: v} (a boolean), nil for other conditions.
func exactCondition(col string, v any, st fieldState) (c condition, ne any, ok bool) {
	matches := func(v any) (any, bool) {
		k, value := kindOf(v)
		return value, k != kindMixed && (st.kind == k || st.kind == kindNone)
	}

	if value, ok := matches(v); ok {
		return condition{sql: col + " = ?", args: []any{value}}, nil, true
	}

	d, isDoc := v.(*types.Document)
	if !isDoc || d.Len() != 1 {
		return condition{}, nil, false
	}

	op := d.Keys()[0]
	arg := must.NotFail(d.Get(op))

	switch op {
	case "$eq":
		if value, ok := matches(arg); ok {
			return condition{sql: col + " = ?", args: []any{value}}, nil, true
		}
	case "$ne":
		if _, isBool := arg.(bool); isBool {
			if value, ok := matches(arg); ok {
				return condition{sql: fmt.Sprintf("(%s IS NULL OR %s <> ?)", col, col), args: []any{value}}, value, true
			}
		}
	case "$gt", "$gte", "$lt", "$lte":
		if value, ok := matches(arg); ok && st.kind != kindBool {
			sqlOp := map[string]string{"$gt": ">", "$gte": ">=", "$lt": "<", "$lte": "<="}[op]
			return condition{sql: fmt.Sprintf("%s %s ?", col, sqlOp), args: []any{value}}, nil, true
		}
	case "$in":
		return exactIn(col, arg, matches)
	}

	return condition{}, nil, false
}

// exactIn translates {$in: arr}.
func exactIn(col string, arr any, matches func(any) (any, bool)) (condition, any, bool) {
	a, ok := arr.(*types.Array)
	if !ok || a.Len() == 0 || a.Len() > maxPushdownIn {
		return condition{}, nil, false
	}

	values := make([]any, 0, a.Len())

	for i := 0; i < a.Len(); i++ {
		value, ok := matches(must.NotFail(a.Get(i)))
		if !ok {
			return condition{}, nil, false
		}

		values = append(values, value)
	}

	return inCondition(col, values, false), nil, true
}

// exactPlan is a filter and a sort translated exactly.
type exactPlan struct {
	conds   []condition
	ne      int // the index in conds of a {$ne: boolean}, -1 for none
	neValue any // its value
	neField string
	orderBy string
}

// planExact translates params' filter and sort exactly, given the states of
// the fields; ok is false when a part of them cannot be.
func planExact(terms []exactTerm, sort *types.Document, states map[string]fieldState) (exactPlan, bool) {
	p := exactPlan{ne: -1}

	for _, t := range terms {
		if t.or != nil {
			c, ok := orCondition(t.or, states)
			if !ok {
				return exactPlan{}, false
			}

			p.conds = append(p.conds, c)

			continue
		}

		c, ne, ok := exactCondition(metadata.ValueColumn(t.field), t.value, states[t.field])
		if !ok || (ne != nil && p.ne >= 0) {
			return exactPlan{}, false
		}

		if ne != nil {
			p.ne, p.neValue, p.neField = len(p.conds), ne, t.field
		}

		p.conds = append(p.conds, c)
	}

	var order []string

	for _, k := range sort.Keys() {
		st := states[k]
		if st.kind == kindMixed {
			return exactPlan{}, false
		}

		dir := " ASC"

		switch must.NotFail(sort.Get(k)) {
		case int64(1), int32(1), float64(1):
		case int64(-1), int32(-1), float64(-1):
			dir = " DESC"
		default:
			return exactPlan{}, false
		}

		order = append(order, metadata.ValueColumn(k)+dir)
	}

	if len(order) > 0 {
		p.orderBy = " ORDER BY " + strings.Join(order, ", ")
	}

	return p, true
}

// orCondition translates an $or's alternatives exactly: each the AND of
// its conditions, none of them a {$ne: boolean} (which countExact counts
// apart only at the top level).
func orCondition(alts [][]exactTerm, states map[string]fieldState) (condition, bool) {
	parts := make([]condition, 0, len(alts))

	for _, alt := range alts {
		p, ok := planExact(alt, types.MakeDocument(0), states)
		if !ok || p.ne >= 0 {
			return condition{}, false
		}

		parts = append(parts, join(p.conds, " AND "))
	}

	c := join(parts, " OR ")
	if len(parts) == 1 {
		c.sql = "(" + c.sql + ")"
	}

	return c, true
}

// where is the WHERE clause of conds (but the one at skip, -1 for none)
// and extra.
func where(conds []condition, skip int, extra ...condition) (string, []any) {
	var parts []condition

	for i, c := range conds {
		if i != skip {
			parts = append(parts, c)
		}
	}

	parts = append(parts, extra...)
	if len(parts) == 0 {
		return "", nil
	}

	c := join(parts, " AND ")
	if len(parts) == 1 {
		c.sql = "(" + c.sql + ")"
	}

	return " WHERE " + c.sql, c.args
}

// exactFields returns the fields terms and sort name, ok is false if one of
// them is not kept.
func exactFields(terms []exactTerm, sort *types.Document, indexes []metadata.IndexInfo) ([]string, bool) {
	fields := append(termFields(nil, terms), sort.Keys()...)

	for _, f := range fields {
		if !exactField(f, indexes) {
			return nil, false
		}
	}

	return fields, true
}

// seekable reports whether SQLite can seek the matches of terms in an index
// on values: one of them is an equality or an $in on the field one leads
// (or there is none: the whole collection).
func seekable(terms []exactTerm, indexes []metadata.IndexInfo) bool {
	if len(terms) == 0 {
		return true
	}

	for _, t := range terms {
		if d, ok := t.value.(*types.Document); t.or != nil || ok && !d.Has("$eq") && !d.Has("$in") {
			continue
		}

		for _, index := range indexes {
			if index.Values != "" && index.Key[0].Field == t.field {
				return true
			}
		}
	}

	return false
}

// queryExact answers params exactly in SQL: their count, or their matches
// sorted and limited; ok is false when it cannot (the caller then queries as
// before).
func (c *collection) queryExact(ctx context.Context, db *fsql.DB, meta *metadata.Collection, params *backends.QueryParams) (*backends.QueryResult, bool, error) {
	if ExactOff.Load() || !params.Exact || meta.Capped() || params.OnlyRecordIDs || params.ExactLimit > maxExactLimit {
		return nil, false, nil
	}

	terms, ok := exactTerms(params.Filter, 0)
	if !ok {
		return nil, false, nil
	}

	fields, ok := exactFields(terms, params.ExactSort, meta.Settings.Indexes)
	if !ok {
		return nil, false, nil
	}

	ts := stateOf(c.r, c.dbName, meta.TableName)

	states, err := ts.snapshot(ctx, db, meta.TableName, fields)
	if err != nil {
		return nil, false, err
	}

	p, ok := planExact(terms, params.ExactSort, states)
	if !ok || !seekable(terms, meta.Settings.Indexes) {
		return nil, false, nil
	}

	if params.Count {
		n, err := countExact(ctx, db, meta, p)
		if err != nil || !ts.unchanged(states) {
			return nil, false, err
		}

		ExactAnswers.Add(1)

		return &backends.QueryResult{Iter: newQueryIterator(ctx, nil, false), Counted: true, Count: n}, true, nil
	}

	w, args := where(p.conds, -1)
	q := prepareSelectClause(meta.TableName, params.Comment, false, false) + w + p.orderBy

	if params.ExactLimit > 0 {
		q += " LIMIT ?"
		args = append(args, params.ExactLimit)
	}

	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, false, lazyerrors.Error(err)
	}

	// The driver stepped once: the read's snapshot is taken, and a write it
	// holds observed its documents before its commit, so before this check.
	if !ts.unchanged(states) {
		rows.Close()
		return nil, false, nil
	}

	ExactAnswers.Add(1)

	return &backends.QueryResult{Iter: newQueryIterator(ctx, rows, false)}, true, nil
}

// countExact counts the matches of p. A {$ne: boolean} (a tombstone: true
// on a few documents, if any) is counted as the rest of the conditions,
// which an index may count without reading a row, less those that also
// hold the value, found through the index of that field alone.
func countExact(ctx context.Context, db *fsql.DB, meta *metadata.Collection, p exactPlan) (int64, error) {
	count := func(q string, args []any) (int64, error) {
		var n int64
		if err := db.QueryRowContext(ctx, q, args...).Scan(&n); err != nil {
			return 0, lazyerrors.Error(err)
		}

		return n, nil
	}

	from := fmt.Sprintf("SELECT COUNT(*) FROM %q", meta.TableName)

	var index string

	for _, i := range meta.Settings.Indexes {
		if p.ne >= 0 && len(i.Key) == 1 && i.Key[0].Field == p.neField {
			index = meta.TableName + "_" + i.Name
			break
		}
	}

	if index == "" {
		w, args := where(p.conds, -1)
		return count(from+w, args)
	}

	w, args := where(p.conds, p.ne)

	all, err := count(from+w, args)
	if err != nil {
		return 0, err
	}

	// FerretDB's own index of the field: its JSON text.
	text := "false"
	if p.neValue == int64(1) {
		text = "true"
	}

	w, args = where(p.conds, p.ne, condition{sql: fmt.Sprintf("%s->%q = ?", metadata.DefaultColumn, p.neField), args: []any{text}})

	equal, err := count(from+fmt.Sprintf(" INDEXED BY %q", index)+w, args)

	return all - equal, err
}
