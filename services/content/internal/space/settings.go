package space

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/internalapi/contentapi"
)

// Settings are the fields of a space an admin sets as they are: stored
// with the space, checked by check, shown in its view and events as
// contentapi.SpaceSettings (the same fields: the view converts) and
// changed by a PATCH that names them (settingsPatch, patched). A field
// added here and there needs no other code but its rule in check.
type Settings struct {
	// GitBookSpaceID is the GitBook space this space was migrated from
	// (an id, "" when unknown): app.gitbook.com links into it are its pages.
	GitBookSpaceID string `bson:"gitbookSpaceId,omitempty"`
	// Language is the language the space is written in (one of
	// contentapi.Languages; "" when not set).
	Language string `bson:"language,omitempty"`
}

// check adds the problems of s.
func (s Settings) check(p *apierr.Problems) {
	validGitBookSpaceID(p, "gitbookSpaceId", s.GitBookSpaceID)
	if s.Language != "" {
		p.OneOf("language", s.Language, contentapi.Languages...)
	}
}

// MaxGitBookSpaceID bounds a GitBook space id (GitBook's are 20 characters).
const MaxGitBookSpaceID = 64

// validGitBookSpaceID: a GitBook space id is letters, digits, '-' and '_'.
func validGitBookSpaceID(p *apierr.Problems, field, id string) {
	if len(id) > MaxGitBookSpaceID {
		p.Add(field, "must be at most %d characters", MaxGitBookSpaceID)
		return
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			p.Add(field, "must be a GitBook space id (letters, digits, '-' and '_')")
			return
		}
	}
}

// settingsPatch is what a PATCH body (a JSON object) says of the
// settings: a JSON object of the settings it names alone, nil when it
// names none.
func settingsPatch(body []byte) ([]byte, error) {
	if len(body) == 0 {
		return nil, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		return nil, apierr.BadRequest("malformed JSON: %s", err.Error())
	}
	named := map[string]json.RawMessage{}
	for _, name := range settingNames() {
		if v, ok := fields[name]; ok {
			named[name] = v
		}
	}
	if len(named) == 0 {
		return nil, nil
	}
	return json.Marshal(named)
}

// patched is s with the settings patch (settingsPatch) names replaced
// by its values. A value of the wrong type is a 400 naming its field.
func (s Settings) patched(patch []byte) (Settings, error) {
	if patch == nil {
		return s, nil
	}
	next := contentapi.SpaceSettings(s)
	if err := json.Unmarshal(patch, &next); err != nil {
		var typ *json.UnmarshalTypeError
		if errors.As(err, &typ) {
			return s, apierr.Invalid(typ.Field, "must be a JSON %s", typ.Type.Kind())
		}
		return s, apierr.BadRequest("malformed JSON: %s", err.Error())
	}
	return Settings(next), nil
}

// settingNames are the JSON names of the settings.
func settingNames() []string {
	t := reflect.TypeFor[contentapi.SpaceSettings]()
	names := make([]string, 0, t.NumField())
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		names = append(names, name)
	}
	return names
}
