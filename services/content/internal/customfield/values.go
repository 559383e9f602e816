package customfield

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"unicode/utf8"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/internalapi/contentapi"
)

// Values are a space's custom field values by field name. A value is a
// string (text, select), a float64 (number), a bool (boolean) or a []string
// (multi-select).
type Values map[string]any

// FieldValue is one item of CustomFieldValues: a definition and, when the
// space has one, its value.
type FieldValue = contentapi.CustomFieldValue

// ValuesPatch is the body of PATCH SPACE/custom-fields: values maps a field
// name to {value}; {value: null} or {} clears the field's value. It stays raw
// JSON so that every problem names the field at fault (values.<name>).
type ValuesPatch struct {
	Values json.RawMessage `json:"values"`
}

// Changes are the validated changes of a ValuesPatch.
type Changes struct {
	Set   Values
	Clear []string // names, sorted
}

// parse validates the patch against the organization's definitions (by
// name) and reports every problem at once.
func (vp ValuesPatch) parse(defs map[string]Field) (Changes, error) {
	raw := bytes.TrimSpace(vp.Values)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return Changes{}, apierr.Invalid("values", "is required")
	}
	var items map[string]json.RawMessage
	if raw[0] != '{' || json.Unmarshal(raw, &items) != nil {
		return Changes{}, apierr.Invalid("values", "must be an object")
	}
	names := make([]string, 0, len(items))
	for name := range items {
		names = append(names, name)
	}
	sort.Strings(names)
	var p apierr.Problems
	ch := Changes{Set: Values{}}
	for _, name := range names {
		field := "values." + name
		f, ok := defs[name]
		if !ok {
			p.Add(field, "is not a custom field of this organization")
			continue
		}
		var item map[string]json.RawMessage
		if b := bytes.TrimSpace(items[name]); len(b) == 0 || b[0] != '{' || json.Unmarshal(b, &item) != nil {
			p.Add(field, "must be an object with a value")
			continue
		}
		v, err := f.Parse(item["value"])
		switch {
		case err != nil:
			p.Add(field, "%s", err.Error())
		case v == nil:
			ch.Clear = append(ch.Clear, name)
		default:
			ch.Set[name] = v
		}
	}
	if err := p.Err(); err != nil {
		return Changes{}, err
	}
	return ch, nil
}

// Parse reads a JSON value for the field: nil (absent or null) clears it;
// otherwise it must fit the field's type (see Values).
func (f Field) Parse(raw json.RawMessage) (any, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	switch f.Type {
	case Text:
		var s string
		if raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
			return nil, fmt.Errorf("must be a string")
		}
		if utf8.RuneCountInString(s) > MaxText {
			return nil, fmt.Errorf("must be at most %d characters", MaxText)
		}
		return s, nil
	case Number:
		var n float64
		if !(raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9')) || json.Unmarshal(raw, &n) != nil {
			return nil, fmt.Errorf("must be a number")
		}
		return n, nil
	case Boolean:
		var b bool
		if json.Unmarshal(raw, &b) != nil {
			return nil, fmt.Errorf("must be true or false")
		}
		return b, nil
	case Select:
		var s string
		if raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
			return nil, fmt.Errorf("must be a string, one of the field's options")
		}
		if !slices.Contains(f.Options, s) {
			return nil, fmt.Errorf("%q is not one of the field's options %q", s, f.Options)
		}
		return s, nil
	case MultiSelect:
		var raws []json.RawMessage
		if raw[0] != '[' || json.Unmarshal(raw, &raws) != nil {
			return nil, fmt.Errorf("must be an array of the field's options")
		}
		out := make([]string, 0, len(raws))
		for _, r := range raws {
			var s string
			if r = bytes.TrimSpace(r); len(r) == 0 || r[0] != '"' || json.Unmarshal(r, &s) != nil {
				return nil, fmt.Errorf("must be an array of strings")
			}
			if !slices.Contains(f.Options, s) {
				return nil, fmt.Errorf("%q is not one of the field's options %q", s, f.Options)
			}
			if slices.Contains(out, s) {
				return nil, fmt.Errorf("has %q twice", s)
			}
			out = append(out, s)
		}
		return out, nil
	}
	return nil, fmt.Errorf("field type %q takes no value", f.Type)
}

// Fit returns the stored value v as the field shows it now, and whether it
// shows at all: a value that no longer fits the definition (its option was
// removed) is not shown; a multi-select value keeps the options still
// offered.
func (f Field) Fit(v any) (any, bool) {
	switch f.Type {
	case Text:
		s, ok := v.(string)
		return s, ok
	case Number:
		n, ok := v.(float64)
		return n, ok
	case Boolean:
		b, ok := v.(bool)
		return b, ok
	case Select:
		s, ok := v.(string)
		return s, ok && slices.Contains(f.Options, s)
	case MultiSelect:
		ss, ok := v.([]string)
		if !ok {
			return nil, false
		}
		out := []string{}
		for _, s := range ss {
			if slices.Contains(f.Options, s) {
				out = append(out, s)
			}
		}
		return out, true
	}
	return nil, false
}

// byName indexes definitions by name.
func byName(defs []Field) map[string]Field {
	m := make(map[string]Field, len(defs))
	for _, f := range defs {
		m[f.Name] = f
	}
	return m
}
