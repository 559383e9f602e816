// Package apiref renders the operations and schemas of an OpenAPI 3.x or
// Swagger 2.0 document as HTML, for the API reference blocks of published pages
// ({% openapi %}, {% openapi-operation %}, {% swagger %},
// {% openapi-schemas %}): an operation's method, path, summary and
// description, its parameters, request body and responses with their
// schemas and examples, its security schemes and a curl example.
//
// Documents are parsed with libopenapi, local $refs resolved, within
// bounds (MaxSpecBytes, ParseTimeout, parses at once); rendering is
// bounded too (MaxDepth, MaxRows, MaxExampleBytes). The HTML is meant to
// be sanitized with the page it is in; descriptions are CommonMark with
// raw HTML left out.
package apiref

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/docspub/platform/libs/specbounds"
	"github.com/pb33f/libopenapi"
	"github.com/pb33f/libopenapi/datamodel"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
)

// Bounds.
const (
	// MaxSpecBytes is the largest document parsed.
	MaxSpecBytes = 4 << 20
	// ParseTimeout bounds one parse; Parses how many run at once.
	ParseTimeout = 10 * time.Second
	Parses       = 2
	// MaxDepth is the deepest nesting of a schema's properties shown;
	// MaxRows the most rows of one schema's table, or of parameters.
	MaxDepth = 4
	MaxRows  = 200
	// MaxExampleBytes bounds one example shown (a longer one is cut).
	MaxExampleBytes = 16 << 10
	// MaxResponses is the most responses of an operation shown.
	MaxResponses = 30
)

// specLimits bound a document before it is parsed (the parse cannot be
// stopped once begun: ParseTimeout only stops waiting for it): about a
// 4 MiB document's worth of nodes, as integrations bounds the specs it
// stores.
var specLimits = specbounds.Limits{YAMLTokens: 1_000_000, Nodes: 500_000, Depth: 128, Refs: 50_000,
	RefDepth: 500, RefWork: 2_000_000, Aliases: 1000}

// Errors of Parse.
var (
	ErrTooLarge = errors.New("the OpenAPI document is over a bound")
	ErrInvalid  = errors.New("not an OpenAPI 3.x or Swagger 2.0 document")
	ErrBusy     = errors.New("too many OpenAPI documents being parsed")
)

// Spec is a parsed document; it is safe for concurrent reads.
type Spec struct {
	doc  *v3.Document
	size int64
}

// memoryFactor is the parsed model's memory per byte of document, as
// measured (the platform's 650 kB API document holds 21 MB once parsed).
const memoryFactor = 32

// Size is the memory the parsed document holds, about (for a cache's
// accounting).
func (s *Spec) Size() int64 { return s.size * memoryFactor }

var parses = make(chan struct{}, Parses)

// Parse parses an OpenAPI 3.x or Swagger 2.0 document (JSON or YAML; a
// Swagger one is read as OpenAPI 3, fromSwagger2), local $refs
// resolved, neither files nor URLs fetched. A parse past ParseTimeout is
// abandoned (its slot freed when it ends).
func Parse(ctx context.Context, raw []byte) (*Spec, error) {
	if len(raw) > MaxSpecBytes {
		return nil, ErrTooLarge
	}
	if _, _, problem := specbounds.Check(raw, specLimits); problem != "" {
		return nil, fmt.Errorf("%w: %s", ErrTooLarge, problem)
	}
	select {
	case parses <- struct{}{}:
	case <-ctx.Done():
		return nil, ErrBusy
	}
	done := make(chan *Spec, 1)
	go func() {
		defer func() { <-parses }()
		done <- parse(raw)
	}()
	t := time.NewTimer(ParseTimeout)
	defer t.Stop()
	select {
	case s := <-done:
		if s == nil {
			return nil, ErrInvalid
		}
		return s, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-t.C:
		return nil, fmt.Errorf("parse OpenAPI document: took longer than %s", ParseTimeout)
	}
}

// parse is Parse's work: nil when raw is no OpenAPI 3.x or Swagger 2.0
// document.
func parse(raw []byte) (s *Spec) {
	defer func() {
		if recover() != nil {
			s = nil
		}
	}()
	cfg := datamodel.NewDocumentConfiguration()
	cfg.AllowFileReferences, cfg.AllowRemoteReferences = false, false
	doc, err := libopenapi.NewDocumentWithConfiguration(bytes.Clone(raw), cfg)
	if err != nil {
		return nil
	}
	switch doc.GetSpecInfo().SpecFormat {
	case datamodel.OAS3, datamodel.OAS31, datamodel.OAS32:
	case datamodel.OAS2:
		m, _ := doc.BuildV2Model() // circular references are legal
		if m == nil {
			return nil
		}
		return &Spec{doc: fromSwagger2(&m.Model), size: int64(len(raw))}
	default:
		return nil
	}
	m, _ := doc.BuildV3Model()
	if m == nil {
		return nil
	}
	return &Spec{doc: &m.Model, size: int64(len(raw))}
}
