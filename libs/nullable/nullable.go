// Package nullable gives request fields three states: absent, null, or a value,
// as PATCH bodies need ("null removes, omitted leaves unchanged").
package nullable

import (
	"bytes"
	"encoding/json"
)

// Field is a JSON field that may be absent, null, or hold a value.
type Field[T any] struct {
	Set   bool // the field was present in the body
	Null  bool // the field was present and null
	Value T
}

// UnmarshalJSON records presence and nullness.
func (f *Field[T]) UnmarshalJSON(b []byte) error {
	f.Set = true
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		f.Null = true
		return nil
	}
	return json.Unmarshal(b, &f.Value)
}

// Of returns a field set to v.
func Of[T any](v T) Field[T] { return Field[T]{Set: true, Value: v} }

// Ptr returns nil when absent or null, else a pointer to the value.
func (f Field[T]) Ptr() *T {
	if !f.Set || f.Null {
		return nil
	}
	return &f.Value
}
