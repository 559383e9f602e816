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

package handler

import (
	"strings"
	"sync/atomic"

	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/iterator"
	"github.com/FerretDB/FerretDB/internal/util/must"
)

// wholeFilter reports whether the backend gets the whole filter: the
// handler leaves out the top-level keys with dots (nested fields).
func wholeFilter(filter *types.Document) bool {
	for _, k := range filter.Keys() {
		if strings.ContainsRune(k, '.') {
			return false
		}
	}

	return true
}

// countStage is a pipeline that counts its $match's documents, as drivers'
// countDocuments sends it: [{$match: f}, {$group: {_id: 1, n: {$sum: 1}}}].
type countStage struct {
	id    any
	field string
}

// countPipeline returns the $group of a counting pipeline; ok is false for
// any other pipeline.
func countPipeline(stages []any) (countStage, bool) {
	if len(stages) != 2 {
		return countStage{}, false
	}

	match, ok := stages[0].(*types.Document)
	if !ok || match.Len() != 1 || !match.Has("$match") {
		return countStage{}, false
	}

	group, ok := stages[1].(*types.Document)
	if !ok || group.Len() != 1 || !group.Has("$group") {
		return countStage{}, false
	}

	spec, ok := must.NotFail(group.Get("$group")).(*types.Document)
	if !ok || spec.Len() != 2 || spec.Keys()[0] != "_id" {
		return countStage{}, false
	}

	id := must.NotFail(spec.Get("_id"))
	switch id.(type) {
	case int32, int64, types.NullType:
	default:
		return countStage{}, false
	}

	field := spec.Keys()[1]

	sum, ok := must.NotFail(spec.Get(field)).(*types.Document)
	if !ok || sum.Len() != 1 || strings.ContainsAny(field, ".$") {
		return countStage{}, false
	}

	if one, ok := must.NotFail(sum.Get(sum.Keys()[0])).(int32); !ok || one != 1 || sum.Keys()[0] != "$sum" {
		return countStage{}, false
	}

	return countStage{id: id, field: field}, true
}

// result is what the $group gives for n documents: nothing for none, else
// its _id and n ($sum's int32, int64 past it).
func (c countStage) result(n int64) types.DocumentsIterator {
	var docs []*types.Document

	if n > 0 {
		var v any = n
		if int64(int32(n)) == n {
			v = int32(n)
		}

		docs = append(docs, must.NotFail(types.NewDocument("_id", c.id, c.field, v)))
	}

	return iterator.Values(iterator.ForSlice(docs))
}

// DeletesByID counts the deletes deleteByID answered, in every server of
// the process (tests check that a delete by id reads nothing).
var DeletesByID atomic.Int64

// deleteByID returns the _id a delete's filter names when it is {_id: v}
// with v a string or an ObjectID: such a delete removes the document by
// its key without reading it first (the insights rollups' chunk records
// are megabytes, each decoded only to be deleted). Other values go the
// usual way: numbers are equal across their kinds, and a document is an
// operator or a sub-document.
func deleteByID(filter *types.Document) (any, bool) {
	if filter == nil || filter.Len() != 1 || !filter.Has("_id") {
		return nil, false
	}

	switch id := must.NotFail(filter.Get("_id")).(type) {
	case string, types.ObjectID:
		return id, true
	}

	return nil, false
}
