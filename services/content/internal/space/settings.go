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
// changed by a PATCH that names them (patchSettings). A field added here
// and there needs no other code but its rule in check.
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

// patchSettings is cur with the settings a PATCH body (a JSON object)
// names replaced by its values, and whether it names any. A value of the
// wrong type is a 400 naming its field.
func patchSettings(cur Settings, body []byte) (Settings, bool, error) {
	if len(body) == 0 {
		return cur, false, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		return cur, false, apierr.BadRequest("malformed JSON: %s", err.Error())
	}
	given := false
	for _, name := range settingNames() {
		_, ok := fields[name]
		given = given || ok
	}
	if !given {
		return cur, false, nil
	}
	next := contentapi.SpaceSettings(cur)
	if err := json.Unmarshal(body, &next); err != nil {
		var typ *json.UnmarshalTypeError
		if errors.As(err, &typ) {
			return cur, true, apierr.Invalid(typ.Field, "must be a JSON %s", typ.Type.Kind())
		}
		return cur, true, apierr.BadRequest("malformed JSON: %s", err.Error())
	}
	return Settings(next), true, nil
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
