package site

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/internalapi/sitesapi"
	"github.com/docspub/platform/libs/quota"
	"github.com/docspub/platform/services/sites/internal/access"
	"github.com/docspub/platform/services/sites/internal/limits"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Draft07 is the only dialect of adaptive schemas.
const Draft07 = "http://json-schema.org/draft-07/schema#"

// UnsignedDescription is the description of the unsigned claims object.
const UnsignedDescription = "Unsigned claims of the site visitor."

// DefaultAdaptiveSchema is the schema of a site that never set one: no claims.
const DefaultAdaptiveSchema = `{"$schema":"` + Draft07 + `","type":"object","properties":{"unsigned":{"type":"object","description":"` +
	UnsignedDescription + `","properties":{},"additionalProperties":false}},"additionalProperties":false}`

// AdaptiveSchemaView is a site's adaptive schema as the API returns it.
type AdaptiveSchemaView struct {
	Object     string          `json:"object"`
	JSONSchema json.RawMessage `json:"jsonSchema"`
	UpdatedAt  time.Time       `json:"updatedAt"`
}

func adaptiveView(schema string, at time.Time) AdaptiveSchemaView {
	return AdaptiveSchemaView{Object: "site-adaptive-schema", JSONSchema: json.RawMessage(schema), UpdatedAt: at}
}

// AdaptiveSchema returns a site's adaptive schema (the view permission is
// needed): the one it set, else the default one as of the site's creation.
func (s *Service) AdaptiveSchema(ctx context.Context, c access.Caller, org, siteID string) (AdaptiveSchemaView, error) {
	st, _, err := s.enter(ctx, c, org, siteID, access.View)
	if err != nil {
		return AdaptiveSchemaView{}, err
	}
	sc, err := s.store.AdaptiveSchema(ctx, st.ID)
	switch {
	case err == nil:
		return adaptiveView(sc.JSON, sc.UpdatedAt), nil
	case !errors.Is(err, apierr.ErrNotFound):
		return AdaptiveSchemaView{}, err
	case st.AdaptiveSchema != "" && st.AdaptiveSchemaAt != nil:
		return adaptiveView(st.AdaptiveSchema, *st.AdaptiveSchemaAt), nil
	}
	return adaptiveView(DefaultAdaptiveSchema, st.CreatedAt), nil
}

// SetAdaptiveSchema replaces a site's adaptive schema (the manage
// permission is needed) once ValidateAdaptiveSchema accepts it. The
// compilation runs in a turn of the organization's quota (a 429 when the
// organization already has as many compilations running and waiting as it
// may) and under a deadline.
func (s *Service) SetAdaptiveSchema(ctx context.Context, c access.Caller, org, siteID string, schema json.RawMessage) (AdaptiveSchemaView, error) {
	st, _, err := s.enter(ctx, c, org, siteID, access.Manage)
	if err != nil {
		return AdaptiveSchemaView{}, err
	}
	norm, err := validateAdaptiveSchema(schema, func(doc map[string]any) error {
		return s.compile(ctx, org, doc)
	})
	if err != nil {
		return AdaptiveSchemaView{}, err
	}
	sc := AdaptiveSchema{Site: st.ID, Organization: org, JSON: string(norm), UpdatedAt: s.clock()}
	v := adaptiveView(sc.JSON, sc.UpdatedAt)
	if err := s.store.SetAdaptiveSchema(ctx, sc, sitesapi.NewSiteAdaptiveSchemaUpdated(org, st.ID, v)); err != nil {
		return AdaptiveSchemaView{}, err
	}
	return v, nil
}

// compileQuota is the per-organization quota of adaptive schema
// compilations (limits.AdaptiveSchemaCompile*).
func compileQuota() *quota.Limiter {
	return quota.New("adaptive schema compilations", quota.Limits{PerKey: limits.AdaptiveSchemaCompilesPerOrg,
		Queue: limits.AdaptiveSchemaCompileQueue, Total: limits.AdaptiveSchemaCompiles, MaxWait: limits.AdaptiveSchemaCompileWait})
}

// compile compiles doc in a turn of org's quota and gives up waiting for it
// after limits.AdaptiveSchemaCompile (a 400: the schema is too complex).
// The turn is held until the compilation really ends, so an organization
// never has more compilations running than its quota, even abandoned ones.
func (s *Service) compile(ctx context.Context, org string, doc map[string]any) error {
	release, err := s.compiles.Acquire(ctx, org)
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() {
		defer release()
		done <- s.compileFn(doc)
	}()
	deadline := time.NewTimer(limits.AdaptiveSchemaCompile)
	defer deadline.Stop()
	select {
	case err := <-done:
		return err
	case <-deadline.C:
		return apierr.Invalid(schemaField, "took longer than %s to compile; make it simpler", limits.AdaptiveSchemaCompile)
	case <-ctx.Done():
		return ctx.Err()
	}
}

const schemaField = "jsonSchema"

// ValidateAdaptiveSchema checks an adaptive schema and returns it
// normalized. First the raw JSON is held to the limits (size, nesting
// depth, number of properties: checkBounds), before anything decodes or
// compiles it. Then it must be a valid JSON Schema draft-07 ($schema, when
// given, names draft-07) and follow the adaptive rules:
//   - the root is {type: "object", properties, additionalProperties: false};
//   - properties has "unsigned", an object of the unsigned visitor claims;
//   - every claim is {type: "boolean", description?}, and claims may be
//     grouped in objects {type: "object", description?, properties,
//     additionalProperties: false}, under unsigned and beside it.
//
// Normalizing adds what the schema implies: $schema, the unsigned object's
// description and an empty description on claims and groups without one.
// A problem is a 400 naming the schema path ("jsonSchema.properties.x.type"),
// a schema over limits.AdaptiveSchemaBytes a 413.
func ValidateAdaptiveSchema(raw json.RawMessage) (json.RawMessage, error) {
	return validateAdaptiveSchema(raw, compileSchema)
}

func validateAdaptiveSchema(raw json.RawMessage, compile func(map[string]any) error) (json.RawMessage, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil, apierr.Invalid(schemaField, "is required")
	}
	if err := checkBounds(raw); err != nil {
		return nil, err
	}
	var root map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&root); err != nil {
		return nil, apierr.Invalid(schemaField, "must be a JSON object")
	}
	if v, ok := root["$schema"]; ok {
		if str, _ := v.(string); strings.TrimSuffix(str, "#") != strings.TrimSuffix(Draft07, "#") {
			return nil, apierr.Invalid(schemaField+".$schema", "must be %q", Draft07)
		}
	}
	root["$schema"] = Draft07
	if err := compile(root); err != nil {
		return nil, err
	}
	if err := checkRoot(root); err != nil {
		return nil, err
	}
	out, err := encode(root)
	if err != nil {
		return nil, err
	}
	if len(out) > limits.AdaptiveSchemaBytes {
		return nil, apierr.TooLarge("%s: is %d bytes once normalized; at most %d", schemaField, len(out), limits.AdaptiveSchemaBytes)
	}
	return out, nil
}

// encode writes v as compact JSON without HTML escaping: '<', '>' and '&'
// stay one byte each, so a schema stores and travels at the size it has.
func encode(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode adaptive schema: %w", err)
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// checkBounds holds the raw schema to the limits in one pass over its
// tokens, without building it: at most limits.AdaptiveSchemaBytes bytes
// (413), objects and arrays nested at most limits.AdaptiveSchemaDepth deep,
// at most limits.AdaptiveSchemaProperties properties (claims and groups:
// the members of every "properties" object) and
// limits.AdaptiveSchemaMembers object members in all (400 naming
// jsonSchema).
func checkBounds(raw []byte) error {
	if len(raw) > limits.AdaptiveSchemaBytes {
		return apierr.TooLarge("%s: is %d bytes; at most %d", schemaField, len(raw), limits.AdaptiveSchemaBytes)
	}
	type frame struct {
		object    bool // an object (else an array)
		wantKey   bool // the object's next string is a member name
		propsList bool // the object is the value of a "properties" member
	}
	var stack []frame
	lastKey, props, members := "", 0, 0
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return apierr.Invalid(schemaField, "must be a JSON object")
		}
		var top *frame
		if len(stack) > 0 {
			top = &stack[len(stack)-1]
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				f := frame{object: t == '{', wantKey: true}
				if top != nil && top.object {
					f.propsList = lastKey == "properties"
					top.wantKey = true
				}
				if stack = append(stack, f); len(stack) > limits.AdaptiveSchemaDepth {
					return apierr.Invalid(schemaField, "is nested deeper than %d levels", limits.AdaptiveSchemaDepth)
				}
			default:
				stack = stack[:len(stack)-1]
			}
		default:
			switch {
			case top != nil && top.object && top.wantKey:
				lastKey, _ = t.(string)
				top.wantKey = false
				if members++; members > limits.AdaptiveSchemaMembers {
					return apierr.Invalid(schemaField, "has more than %d object members", limits.AdaptiveSchemaMembers)
				}
				if top.propsList {
					if props++; props > limits.AdaptiveSchemaProperties {
						return apierr.Invalid(schemaField, "has more than %d properties", limits.AdaptiveSchemaProperties)
					}
				}
			case top != nil && top.object:
				top.wantKey = true
			}
		}
	}
}

// compileSchema compiles doc as draft-07; a schema that does not compile is
// a 400 naming jsonSchema.
func compileSchema(doc map[string]any) error {
	if err := compileDraft07(doc); err != nil {
		return apierr.Invalid(schemaField, "is not a valid JSON Schema draft-07: %s", err)
	}
	return nil
}

// compileDraft07 compiles a schema as draft-07; nothing is loaded from
// outside (a $ref to another document fails).
func compileDraft07(doc map[string]any) error {
	b, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft7)
	c.UseLoader(noLoader{})
	const url = "urn:adaptive-schema"
	if err := c.AddResource(url, v); err != nil {
		return errors.New(firstLine(err.Error()))
	}
	if _, err := c.Compile(url); err != nil {
		var sv *jsonschema.SchemaValidationError
		if errors.As(err, &sv) {
			return errors.New(validationDetail(sv.Err))
		}
		return errors.New(firstLine(err.Error()))
	}
	return nil
}

type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("references to other documents (%s) are not allowed", url)
}

// validationDetail is the innermost message of a metaschema violation: its
// place and what is wrong.
func validationDetail(err error) string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return firstLine(err.Error())
	}
	for len(ve.Causes) > 0 {
		ve = ve.Causes[0]
	}
	at := "/" + strings.Join(ve.InstanceLocation, "/")
	return fmt.Sprintf("at %s: %s", at, ve.ErrorKind.LocalizedString(message.NewPrinter(language.English)))
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func checkKeys(path string, obj map[string]any, allowed ...string) error {
	for k := range obj {
		if !slices.Contains(allowed, k) {
			return apierr.Invalid(path+"."+k, "is not allowed here (allowed: %s)", strings.Join(allowed, ", "))
		}
	}
	return nil
}

func checkRoot(root map[string]any) error {
	if err := checkKeys(schemaField, root, "$schema", "type", "properties", "additionalProperties"); err != nil {
		return err
	}
	if root["type"] != "object" {
		return apierr.Invalid(schemaField+".type", `must be "object"`)
	}
	if root["additionalProperties"] != false {
		return apierr.Invalid(schemaField+".additionalProperties", "must be false")
	}
	props, ok := root["properties"].(map[string]any)
	if !ok {
		return apierr.Invalid(schemaField+".properties", `is required and must hold the "unsigned" claims object`)
	}
	path := schemaField + ".properties"
	unsigned, ok := props["unsigned"].(map[string]any)
	if !ok {
		return apierr.Invalid(path+".unsigned", "is required: an object schema of the unsigned visitor claims")
	}
	if d, ok := unsigned["description"]; ok && d != UnsignedDescription {
		return apierr.Invalid(path+".unsigned.description", "must be %q", UnsignedDescription)
	}
	unsigned["description"] = UnsignedDescription
	if err := checkGroup(path+".unsigned", unsigned); err != nil {
		return err
	}
	for _, name := range sortedKeys(props) {
		if name == "unsigned" {
			continue
		}
		if err := checkClaim(path+"."+name, props[name]); err != nil {
			return err
		}
	}
	return nil
}

// checkClaim checks a claim (a boolean) or a group of claims (an object).
func checkClaim(path string, v any) error {
	obj, ok := v.(map[string]any)
	if !ok {
		return apierr.Invalid(path, `must be a claim schema {"type":"boolean"}`)
	}
	switch obj["type"] {
	case "boolean":
		if err := checkKeys(path, obj, "type", "description"); err != nil {
			return err
		}
		return describe(path, obj)
	case "object":
		return checkGroup(path, obj)
	}
	return apierr.Invalid(path+".type", `must be "boolean": claims are booleans (or "object" for a group of claims)`)
}

// checkGroup checks an object of claims.
func checkGroup(path string, obj map[string]any) error {
	if err := checkKeys(path, obj, "type", "description", "properties", "additionalProperties"); err != nil {
		return err
	}
	if obj["type"] != "object" {
		return apierr.Invalid(path+".type", `must be "object"`)
	}
	if obj["additionalProperties"] != false {
		return apierr.Invalid(path+".additionalProperties", "must be false")
	}
	props, ok := obj["properties"].(map[string]any)
	if !ok {
		if _, present := obj["properties"]; present {
			return apierr.Invalid(path+".properties", "must be an object")
		}
		props = map[string]any{}
		obj["properties"] = props
	}
	if err := describe(path, obj); err != nil {
		return err
	}
	for _, name := range sortedKeys(props) {
		if err := checkClaim(path+".properties."+name, props[name]); err != nil {
			return err
		}
	}
	return nil
}

// describe gives a schema without a description an empty one.
func describe(path string, obj map[string]any) error {
	d, ok := obj["description"]
	if !ok {
		obj["description"] = ""
		return nil
	}
	if _, isString := d.(string); !isString {
		return apierr.Invalid(path+".description", "must be a string")
	}
	return nil
}

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
