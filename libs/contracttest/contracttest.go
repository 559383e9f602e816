// Package contracttest validates response bodies against the API contract in
// shared/contract: component schemas from schemas.json and inline response
// bodies of operations_detail.json, compiled as JSON Schema 2020-12 (the
// dialect of OpenAPI 3.1).
package contracttest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

const docURL = "https://contract.local/contract.json"

// Operation is one row of the contract.
type Operation struct {
	Method        string          `json:"method"`
	Path          string          `json:"path"`
	Service       string          `json:"service"`
	SuccessStatus int             `json:"success_status"`
	OperationID   string          `json:"operation_id"`
	Schema        string          `json:"response_schema"`
	ResponseBody  json.RawMessage `json:"response_body"`
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

// Dir finds shared/contract by walking up from the working directory: it sits
// in a "shared" folder beside (or above) the checkout.
func Dir() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		for _, c := range []string{filepath.Join(d, "shared", "contract"), filepath.Join(d, "..", "shared", "contract")} {
			if _, err := os.Stat(filepath.Join(c, "schemas.json")); err == nil {
				return filepath.Clean(c), nil
			}
		}
		if filepath.Dir(d) == d {
			return "", errors.New("shared/contract not found above " + wd)
		}
	}
}

func load() (*contract, error) {
	once.Do(func() { loaded, errLoad = read() })
	return loaded, errLoad
}

func read() (*contract, error) {
	dir, err := Dir()
	if err != nil {
		return nil, err
	}
	var schemas struct {
		Components map[string]any `json:"components"`
	}
	if err := readJSON(filepath.Join(dir, "schemas.json"), &schemas); err != nil {
		return nil, err
	}
	var detail struct {
		Operations []Operation `json:"operations"`
	}
	if err := readJSON(filepath.Join(dir, "operations_detail.json"), &detail); err != nil {
		return nil, err
	}
	c := &contract{ops: map[string]Operation{}, compiled: map[string]*jsonschema.Schema{}}
	bodies := map[string]any{}
	c.list = detail.Operations
	for _, op := range detail.Operations {
		if op.OperationID == "" {
			continue
		}
		c.ops[op.OperationID] = op
		if len(op.ResponseBody) > 0 && string(op.ResponseBody) != "null" {
			v, err := jsonschema.UnmarshalJSON(bytes.NewReader(op.ResponseBody))
			if err != nil {
				return nil, fmt.Errorf("response body of %s: %w", op.OperationID, err)
			}
			bodies[op.OperationID] = v
		}
	}
	// One document holds components and operation bodies, so "#/components/..." refs resolve.
	raw, err := json.Marshal(map[string]any{"$schema": "https://json-schema.org/draft/2020-12/schema", "components": schemas.Components})
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	doc.(map[string]any)["operations"] = bodies
	c.compiler = jsonschema.NewCompiler()
	c.compiler.DefaultDraft(jsonschema.Draft2020)
	if err := c.compiler.AddResource(docURL, doc); err != nil {
		return nil, fmt.Errorf("add contract: %w", err)
	}
	return c, nil
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
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

// Operations returns every operation of the contract.
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
// against its documented response body schema. An operation without a body
// schema accepts only an empty body.
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
	if op.Schema == "-" || status == http.StatusNoContent || status == http.StatusResetContent {
		if len(bytes.TrimSpace(body)) != 0 {
			return fmt.Errorf("%s: want no body, got %s", operationID, truncate(body))
		}
		return nil
	}
	if len(op.ResponseBody) == 0 || string(op.ResponseBody) == "null" {
		return nil // absent or seed-only: api.md alone describes it
	}
	return check("/operations/"+operationID, body)
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
