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
package ferretdb

import (
	"github.com/FerretDB/FerretDB/internal/backends/sqlite"
	"github.com/FerretDB/FerretDB/internal/handler"
)

// SetExactPushdown turns on (the default) or off the SQLite backend's
// exact pushdown (a filter it translates exactly is counted, sorted and
// limited in SQL), for every server of the process: tests compare its
// answers with the handler's own.
func SetExactPushdown(on bool) { sqlite.ExactOff.Store(!on) }

// ExactPushdowns is the number of queries the exact pushdown answered so
// far, in every server of the process.
func ExactPushdowns() int64 { return sqlite.ExactAnswers.Load() }

// DeletesByID is the number of deletes of one document by its string or
// ObjectID _id that removed it without reading it, in every server of the
// process.
func DeletesByID() int64 { return handler.DeletesByID.Load() }
