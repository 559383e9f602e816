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

// Package common contains code used to be shared by different handlers.
//
// It should eventually be moved to the parent package or split into multiple smaller packages.
package common

const (
	// MinWireVersion is the minimal supported wire protocol version.
	MinWireVersion = int32(0) // needed for some apps and drivers

	// MaxWireVersion is the maximal supported wire protocol version.
	MaxWireVersion = int32(21)
)
