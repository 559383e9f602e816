package httpx

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"unicode"

	"github.com/docspub/platform/libs/apierr"
	"github.com/gin-gonic/gin"
)

// MaxBodyBytes bounds a JSON request body read by BindJSON.
const MaxBodyBytes = 1 << 20

// BindJSON decodes the request body into v. A missing or malformed body, or a
// field of the wrong type, is a 400 that names the field.
func BindJSON(c *gin.Context, v any) error {
	if c.Request.Body == nil || c.Request.Body == http.NoBody {
		return apierr.BadRequest("request body is required")
	}
	dec := json.NewDecoder(http.MaxBytesReader(c.Writer, c.Request.Body, MaxBodyBytes))
	if err := dec.Decode(v); err != nil {
		return decodeError(err)
	}
	if dec.More() {
		return apierr.BadRequest("malformed JSON: unexpected data after the body")
	}
	return nil
}

// BindOptionalJSON is BindJSON for operations whose body may be empty.
func BindOptionalJSON(c *gin.Context, v any) error {
	if c.Request.Body == nil || c.Request.Body == http.NoBody || c.Request.ContentLength == 0 {
		return nil
	}
	err := BindJSON(c, v)
	// Compare identity: errors.Is matches every *apierr.Error of the same
	// status, so it would swallow every 400 (malformed JSON, wrong types).
	if err == errEmpty {
		return nil
	}
	return err
}

var errEmpty = apierr.BadRequest("request body is required")

func decodeError(err error) error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var tooBig *http.MaxBytesError
	switch {
	case errors.Is(err, io.EOF):
		return errEmpty
	case errors.As(err, &syntax):
		return apierr.BadRequest("malformed JSON at offset %d", syntax.Offset)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return apierr.BadRequest("malformed JSON: unexpected end of body")
	case errors.As(err, &typ):
		field := jsonPath(typ.Field)
		if field == "" {
			field = "body"
		}
		return apierr.Invalid(field, "must be %s", jsonKind(typ.Type.Kind().String()))
	case errors.As(err, &tooBig):
		return apierr.New(http.StatusRequestEntityTooLarge, "request body larger than %d bytes", tooBig.Limit)
	default:
		return apierr.BadRequest("malformed JSON: %s", err.Error())
	}
}

// jsonPath drops the Go names of embedded structs that encoding/json puts in
// front of a field's path ("ReplyUpdate.addedReactions" → "addedReactions"):
// the API's JSON names start in lower case.
func jsonPath(field string) string {
	parts := strings.Split(field, ".")
	for len(parts) > 1 && parts[0] != "" && unicode.IsUpper(rune(parts[0][0])) {
		parts = parts[1:]
	}
	return strings.Join(parts, ".")
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "slice", "array":
		return "an array"
	case "map", "struct":
		return "an object"
	case "int", "int64", "int32", "float64", "float32", "uint", "uint64":
		return "a number"
	}
	return "of type " + goKind
}

// QueryBool reads an optional boolean query parameter.
func QueryBool(c *gin.Context, name string, def bool) (bool, error) {
	s, ok := c.GetQuery(name)
	if !ok || s == "" {
		return def, nil
	}
	b, err := strconv.ParseBool(s)
	if err != nil {
		return def, apierr.Invalid(name, "must be true or false")
	}
	return b, nil
}

// QueryEnum reads an optional query parameter limited to allowed values.
func QueryEnum(c *gin.Context, name, def string, allowed ...string) (string, error) {
	s, ok := c.GetQuery(name)
	if !ok || s == "" {
		return def, nil
	}
	for _, a := range allowed {
		if s == a {
			return s, nil
		}
	}
	return "", apierr.Invalid(name, "must be one of %v", allowed)
}
