// Package apidoc holds the platform's API description: openapi.json, an
// OpenAPI 3.1 document of every /v1 operation the gateway serves, embedded
// in the binary. The document is generated: its sources are the YAML files
// of src/ (src/openapi.yaml, the root; src/<service>/<tag>.yaml, a
// service's operations and the components only they use;
// src/components/, the components several services use), bundled by
// `go generate` (internal/bundle), and a test fails when the committed
// openapi.json is not their bundle. Each operation names its owning
// service in `x-service` (the gateway builds its route table from it);
// operations and schemas of this platform that the public GitBook API lacks
// carry `x-docspub-extension: true`, deliberate differences carry
// `x-docspub-deviation`, and a path parameter that takes the rest of the
// path, slashes included, carries `x-docspub-rest: true`.
//
// The gateway serves the document (with its public URL as the server) and a
// reference page rendered from it by Swagger UI (swaggerui/, vendored);
// the contract tests (libs/contracttest, the gateway's route table test) read
// it; apidoctest loads and validates it with kin-openapi. Nothing here reads a
// file at run time.
package apidoc

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

//go:generate go run generate.go

//go:embed openapi.json
var document []byte

// JSON returns the document as committed (servers name the local default).
// The caller must not modify the returned bytes.
func JSON() []byte { return document }

// Methods of an OpenAPI path item that this API uses, in a fixed order.
var methods = []string{http.MethodGet, http.MethodPut, http.MethodPost, http.MethodDelete, http.MethodPatch, http.MethodHead}

// Operation is one operation of the document.
type Operation struct {
	Method      string
	Path        string // as the document writes it: "/v1/spaces/{spaceId}"
	OperationID string
	// Service owns the operation behind the gateway (x-service).
	Service string
	// SuccessStatus is the one 2xx status the operation answers.
	SuccessStatus int
	// Extension is true for an operation the public GitBook API lacks.
	Extension bool
	// Public is true for an operation that needs no token (security: []).
	Public bool
	// Pointer is the JSON pointer, in the document, of the success
	// response's JSON schema; empty when that response has no JSON body.
	Pointer string
}

type rawOperation struct {
	OperationID string                     `json:"operationId"`
	Service     string                     `json:"x-service"`
	Extension   bool                       `json:"x-docspub-extension"`
	Security    *[]map[string][]string     `json:"security"`
	Responses   map[string]json.RawMessage `json:"responses"`
}

type rawResponse struct {
	Content map[string]struct {
		Schema json.RawMessage `json:"schema"`
	} `json:"content"`
}

// Operations lists every operation of the document, by path then method.
func Operations() ([]Operation, error) {
	var ops []Operation
	err := eachOperation(document, func(m, p string, raw json.RawMessage) error {
		op, err := operation(m, p, raw)
		ops = append(ops, op)
		return err
	})
	if err != nil {
		return nil, err
	}
	return ops, nil
}

func operation(method, path string, raw json.RawMessage) (Operation, error) {
	var ro rawOperation
	if err := json.Unmarshal(raw, &ro); err != nil {
		return Operation{}, fmt.Errorf("apidoc: %s %s: %w", method, path, err)
	}
	op := Operation{Method: method, Path: path, OperationID: ro.OperationID, Service: ro.Service,
		Extension: ro.Extension, Public: ro.Security != nil && len(*ro.Security) == 0}
	for code, body := range ro.Responses {
		status, err := strconv.Atoi(code)
		if err != nil || status < 200 || status > 299 {
			continue
		}
		if op.SuccessStatus != 0 {
			return Operation{}, fmt.Errorf("apidoc: %s %s: more than one success status", method, path)
		}
		op.SuccessStatus = status
		var r rawResponse
		if err := json.Unmarshal(body, &r); err != nil {
			return Operation{}, fmt.Errorf("apidoc: %s %s: response %s: %w", method, path, code, err)
		}
		if _, ok := r.Content["application/json"]; ok {
			op.Pointer = "/paths/" + escape(path) + "/" + strings.ToLower(method) + "/responses/" + code + "/content/application~1json/schema"
		}
	}
	if op.OperationID == "" || op.Service == "" || op.SuccessStatus == 0 {
		return Operation{}, fmt.Errorf("apidoc: %s %s: needs an operationId, an x-service and one success status", method, path)
	}
	return op, nil
}

// escape escapes one JSON pointer token (RFC 6901).
func escape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// WithServer returns the document with servers set to one entry, publicURL
// (the gateway's public URL, without /v1: the paths carry it).
func WithServer(publicURL string) ([]byte, error) {
	u, err := url.Parse(publicURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("apidoc: server URL %q is not an absolute http(s) URL", publicURL)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(document, &doc); err != nil {
		return nil, fmt.Errorf("apidoc: %w", err)
	}
	servers, err := json.Marshal([]map[string]string{{"url": strings.TrimSuffix(publicURL, "/"), "description": "This platform's gateway."}})
	if err != nil {
		return nil, err
	}
	doc["servers"] = servers
	// encoding/json writes map keys sorted: the output is stable.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

//go:embed swaggerui
var reference embed.FS

// Reference returns the files of the reference page: index.html (the page),
// init.js, and Swagger UI's swagger-ui-bundle.js and swagger-ui.css
// (vendored with its license, see swaggerui/README.md).
func Reference() (fs.FS, error) { return fs.Sub(reference, "swaggerui") }
