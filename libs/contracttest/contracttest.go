// Package contracttest validates response bodies against the platform's API
// document (libs/apidoc, OpenAPI 3.1): component schemas and the success
// response schema of each operation, compiled as JSON Schema 2020-12 (the
// dialect of OpenAPI 3.1) straight from the embedded document.
package contracttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"path"
	"strings"
	"sync"
	"testing"

	"github.com/docspub/platform/libs/apidoc"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

const docURL = "https://api.docspub.local/openapi.json"

// Operation is one operation of the API document.
type Operation struct {
	Method        string `json:"method"`
	Path          string `json:"path"`
	Service       string `json:"service"`
	SuccessStatus int    `json:"success_status"`
	OperationID   string `json:"operation_id"`
	// Schema is the success body's component schema name, "inline" for a
	// schema written in the operation, or "-" for no JSON body.
	Schema string `json:"response_schema"`
	// ResponseBody is the success body's schema as the document writes it.
	ResponseBody json.RawMessage `json:"response_body"`

	pointer string
}

type contract struct {
	list     []Operation
	ops      map[string]Operation
	compiler *jsonschema.Compiler
	mu       sync.Mutex
	compiled map[string]*jsonschema.Schema
}

var (
	once    sync.Once
	loaded  *contract
	errLoad error
)

func load() (*contract, error) {
	once.Do(func() { loaded, errLoad = read() })
	return loaded, errLoad
}

func read() (*contract, error) {
	ops, err := apidoc.Operations()
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(apidoc.JSON()))
	if err != nil {
		return nil, fmt.Errorf("api document: %w", err)
	}
	c := &contract{ops: map[string]Operation{}, compiled: map[string]*jsonschema.Schema{}}
	for _, o := range ops {
		op := Operation{Method: o.Method, Path: o.Path, Service: o.Service, SuccessStatus: o.SuccessStatus,
			OperationID: o.OperationID, Schema: "-", pointer: o.Pointer}
		if o.Pointer != "" {
			v, ok := at(doc, o.Pointer)
			if !ok {
				return nil, fmt.Errorf("%s: no schema at %s", o.OperationID, o.Pointer)
			}
			if op.ResponseBody, err = json.Marshal(v); err != nil {
				return nil, err
			}
			op.Schema = "inline"
			if m, ok := v.(map[string]any); ok && len(m) == 1 {
				if ref, ok := m["$ref"].(string); ok {
					op.Schema = path.Base(ref)
				}
			}
		}
		c.list = append(c.list, op)
		c.ops[op.OperationID] = op
	}
	c.compiler = jsonschema.NewCompiler()
	c.compiler.DefaultDraft(jsonschema.Draft2020)
	if err := c.compiler.AddResource(docURL, doc); err != nil {
		return nil, fmt.Errorf("add api document: %w", err)
	}
	return c, nil
}

// at returns the value at a JSON pointer of doc.
func at(doc any, pointer string) (any, bool) {
	cur := doc
	for _, tok := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[tok]; !ok {
			return nil, false
		}
	}
	return cur, true
}

func (c *contract) schema(pointer string) (*jsonschema.Schema, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.compiled[pointer]; ok {
		return s, nil
	}
	s, err := c.compiler.Compile(docURL + "#" + pointer)
	if err != nil {
		return nil, err
	}
	c.compiled[pointer] = s
	return s, nil
}

// Operations returns every operation of the API document.
func Operations(t testing.TB) []Operation {
	t.Helper()
	c, err := load()
	if err != nil {
		t.Fatalf("contracttest: %v", err)
	}
	return append([]Operation(nil), c.list...)
}

// Check validates body against a component schema ("OrganizationMember").
func Check(schemaName string, body []byte) error {
	return check("/components/schemas/"+schemaName, body)
}

// CheckOperation validates a success body of an operation (by operation id)
// against its documented response body schema. A 204 or 205 must have no body.
func CheckOperation(operationID string, status int, body []byte) error {
	c, err := load()
	if err != nil {
		return err
	}
	op, ok := c.ops[operationID]
	if !ok {
		return fmt.Errorf("unknown operation %s", operationID)
	}
	if status != op.SuccessStatus {
		return fmt.Errorf("%s: status %d, want %d (body %s)", operationID, status, op.SuccessStatus, truncate(body))
	}
	if status == http.StatusNoContent || status == http.StatusResetContent {
		if len(bytes.TrimSpace(body)) != 0 {
			return fmt.Errorf("%s: want no body, got %s", operationID, truncate(body))
		}
		return nil
	}
	if op.pointer == "" {
		return nil // the success body is not JSON (a download, a page)
	}
	return check(op.pointer, body)
}

func check(pointer string, body []byte) error {
	c, err := load()
	if err != nil {
		return err
	}
	s, err := c.schema(pointer)
	if err != nil {
		return fmt.Errorf("compile %s: %w", pointer, err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("body is not JSON: %w (%s)", err, truncate(body))
	}
	if err := s.Validate(v); err != nil {
		return fmt.Errorf("body does not match %s: %v\nbody: %s", pointer, err, truncate(body))
	}
	return nil
}

// Validate fails the test when body does not match the component schema.
func Validate(t testing.TB, schemaName string, body []byte) {
	t.Helper()
	if err := Check(schemaName, body); err != nil {
		t.Error(err)
	}
}

// ValidateOperation fails the test when status or body do not match the operation.
func ValidateOperation(t testing.TB, operationID string, status int, body []byte) {
	t.Helper()
	if err := CheckOperation(operationID, status, body); err != nil {
		t.Error(err)
	}
}

func truncate(b []byte) string {
	if len(b) > 600 {
		return string(b[:600]) + "…"
	}
	return string(b)
}
