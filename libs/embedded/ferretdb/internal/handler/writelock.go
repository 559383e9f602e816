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

// This file is docspub's (PATCH.md), not upstream's.

package handler

import "sync"

// writeLocks serialize the writes that read before they write (update,
// findAndModify, delete) per collection of a handler: an update reads the
// matching documents and writes them back outside any transaction, so two
// concurrent updates of one document, from any connections or processes,
// could both apply to the same version and one be lost, and a
// compare-and-set ({_id, version} filter) pass twice. MongoDB applies each
// single-document write atomically; holding the collection's lock from the
// read to the write does the same here. SQLite takes one writer at a time
// per database file anyway; reads are not held.
var writeLocks sync.Map // writeKey → *sync.Mutex

type writeKey struct {
	h        *Handler
	db, coll string
}

// lockWrites locks the writes of db.coll and returns the unlock.
func (h *Handler) lockWrites(db, coll string) func() {
	v, _ := writeLocks.LoadOrStore(writeKey{h, db, coll}, new(sync.Mutex))
	mu := v.(*sync.Mutex)
	mu.Lock()
	return mu.Unlock
}
