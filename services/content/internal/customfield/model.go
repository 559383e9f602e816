// Package customfield is content's custom fields: the definitions an
// organization's admins declare (ORG/custom-fields) and the values each space
// holds for them (SPACE/custom-fields), who may read and change them (through
// package access) and the events their changes publish. It knows neither gin
// nor the MongoDB driver: it talks to storage through Store.
package customfield

import (
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/libs/nullable"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/content/internal/access"
	"github.com/docspub/platform/services/content/internal/limits"
	"github.com/docspub/platform/services/content/internal/links"
)

// Type is the kind of value a custom field holds.
type Type string

// The field types.
const (
	Text        Type = "text"
	Number      Type = "number"
	Boolean     Type = "boolean"
	Select      Type = "select"
	MultiSelect Type = "multi-select"
)

// Types lists every field type, for validation messages.
var Types = []string{string(Text), string(Number), string(Boolean), string(Select), string(MultiSelect)}

// HasOptions reports whether fields of the type choose among options.
func (t Type) HasOptions() bool { return t == Select || t == MultiSelect }

// Limits of definitions and values (api.md, "Limits"; package limits).
const (
	MaxName        = limits.FieldName
	MaxTitle       = limits.FieldTitle
	MaxDescription = limits.FieldDescription
	MaxPlaceholder = limits.FieldPlaceholder
	MaxOptions     = limits.FieldOptions
	MaxOption      = limits.FieldOption
	MaxText        = limits.FieldText
)

// namePattern is what a field name may be made of. It has no "." or "$", so
// a name is safe as a stored key.
var namePattern = regexp.MustCompile(`^[a-z_\-0-9]+$`)

// Field is a stored custom field definition. Its name is unique within its
// organization and never changes.
type Field struct {
	ID           string    `bson:"_id"`
	Organization string    `bson:"organization"`
	Name         string    `bson:"name"`
	Type         Type      `bson:"type"`
	Title        string    `bson:"title"`
	Description  string    `bson:"description"`
	Placeholder  string    `bson:"placeholder"`
	Options      []string  `bson:"options,omitempty"` // select and multi-select only
	CreatedAt    time.Time `bson:"createdAt"`
	UpdatedAt    time.Time `bson:"updatedAt"`
}

// View is a custom field as the API renders it, and as the custom_field.*
// events carry it (contentapi.CustomField).
type View = contentapi.CustomField

// URLs is a custom field's urls object.
type URLs = contentapi.LocationURLs

// Permissions is a custom field's permissions object: view is whether the
// caller may read the organization's definitions (any member with a role),
// edit whether they may change them (access.Configure, admins).
type Permissions = contentapi.CustomFieldPermissions

// PermissionsFor is the permissions object of a caller with level.
func PermissionsFor(level roles.Role) Permissions {
	return Permissions{View: access.Allows(level, access.View), Edit: access.Allows(level, access.Configure)}
}

// Render renders a definition for a caller with level.
func Render(u links.URLs, f Field, level roles.Role) View {
	return View{
		ID: f.ID, Name: f.Name, Title: f.Title, Description: f.Description, Type: string(f.Type),
		Placeholder: f.Placeholder, Options: f.Options, CreatedAt: f.CreatedAt, UpdatedAt: f.UpdatedAt,
		URLs:        URLs{Location: u.Location("/orgs/" + f.Organization + "/custom-fields/" + f.Name)},
		Permissions: PermissionsFor(level),
	}
}

// Page asks for one page of an organization's definitions, ordered by name:
// those after the definition (AfterName, AfterID) when AfterID is set, at
// most Limit of them (0: all).
type Page struct {
	AfterName string
	AfterID   string
	Limit     int
}

// NewField is the body of POST ORG/custom-fields.
type NewField struct {
	Name        string                   `json:"name"`
	Type        string                   `json:"type"`
	Title       string                   `json:"title"`
	Description string                   `json:"description"`
	Placeholder string                   `json:"placeholder"`
	Options     nullable.Field[[]string] `json:"options"`
}

// validate reports every problem of the body at once.
func (n NewField) validate() error {
	var p apierr.Problems
	p.Length("name", n.Name, 1, MaxName)
	if n.Name != "" {
		p.Pattern("name", n.Name, namePattern)
	}
	if n.Type == "" {
		p.Add("type", "is required")
	} else {
		p.OneOf("type", n.Type, Types...)
	}
	p.Text("title", n.Title, 0, MaxTitle)
	p.Length("description", n.Description, 0, MaxDescription)
	p.Text("placeholder", n.Placeholder, 0, MaxPlaceholder)
	if slices.Contains(Types, n.Type) {
		checkOptions(&p, Type(n.Type), n.Options)
	}
	return p.Err()
}

// Patch is the body of PATCH ORG/custom-fields/{fieldName}. Absent fields
// stay; a null title, description or placeholder clears it. Name and type
// cannot change (giving the current value is harmless).
type Patch struct {
	Name        nullable.Field[string]   `json:"name"`
	Type        nullable.Field[string]   `json:"type"`
	Title       nullable.Field[string]   `json:"title"`
	Description nullable.Field[string]   `json:"description"`
	Placeholder nullable.Field[string]   `json:"placeholder"`
	Options     nullable.Field[[]string] `json:"options"`
}

// apply validates the patch against f, applies it, and reports whether
// anything changed.
func (pt Patch) apply(f *Field) (bool, error) {
	var p apierr.Problems
	if pt.Name.Set && (pt.Name.Null || pt.Name.Value != f.Name) {
		p.Add("name", "cannot be changed")
	}
	if pt.Type.Set && (pt.Type.Null || Type(pt.Type.Value) != f.Type) {
		p.Add("type", "cannot be changed")
	}
	text := func(field string, v nullable.Field[string], max int, dst *string) bool {
		if !v.Set {
			return false
		}
		s := ""
		if !v.Null {
			s = v.Value
		}
		if field == "description" {
			p.Length(field, s, 0, max) // may span lines
		} else {
			p.Text(field, s, 0, max)
		}
		changed := s != *dst
		*dst = s
		return changed
	}
	changed := text("title", pt.Title, MaxTitle, &f.Title)
	changed = text("description", pt.Description, MaxDescription, &f.Description) || changed
	changed = text("placeholder", pt.Placeholder, MaxPlaceholder, &f.Placeholder) || changed
	if pt.Options.Set && !(pt.Options.Null && !f.Type.HasOptions()) {
		checkOptions(&p, f.Type, pt.Options)
		changed = changed || !slices.Equal(pt.Options.Value, f.Options)
		f.Options = pt.Options.Value
	}
	if err := p.Err(); err != nil {
		return false, err
	}
	return changed, nil
}

// checkOptions checks the options of a field of type t: required for the
// select types (1..MaxOptions distinct non-empty strings of at most
// MaxOption characters), refused for the others (null counts as absent).
func checkOptions(p *apierr.Problems, t Type, opts nullable.Field[[]string]) {
	given := opts.Set && !opts.Null
	if !t.HasOptions() {
		if given {
			p.Add("options", "only select and multi-select fields have options")
		}
		return
	}
	switch {
	case !given:
		p.Add("options", "is required for %s fields", t)
		return
	case len(opts.Value) == 0:
		p.Add("options", "must have at least 1 item")
		return
	case len(opts.Value) > MaxOptions:
		p.Add("options", "must have at most %d items", MaxOptions)
		return
	}
	for i, o := range opts.Value {
		field := fieldIndex("options", i)
		p.Text(field, o, 1, MaxOption)
		if j := slices.Index(opts.Value, o); j < i {
			p.Add(field, "duplicates %s", fieldIndex("options", j))
		}
	}
}

func fieldIndex(field string, i int) string { return field + "[" + strconv.Itoa(i) + "]" }
