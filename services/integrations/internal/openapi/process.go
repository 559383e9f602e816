package openapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/internalapi/integrationsapi"
	"github.com/docspub/platform/libs/jobs"
	"github.com/docspub/platform/services/integrations/internal/access"
	"github.com/pb33f/libopenapi"
	"github.com/pb33f/libopenapi/datamodel"
)

// Handler is the job handler of JobKind: it processes the spec's current
// generation and records the result with a compare-and-set on it; when the
// spec was replaced meanwhile it processes the new source (at most a few
// rounds, then it is tried again later).
func (s *Service) Handler(ctx context.Context, r *jobs.Run) error {
	var p jobPayload
	if err := r.Payload(&p); err != nil {
		return jobs.Permanent(err)
	}
	return s.Process(ctx, p.Spec)
}

// Process processes the current generation of spec id (the job's work;
// benchmarks call it directly).
func (s *Service) Process(ctx context.Context, id string) error {
	for range 3 {
		sp, err := s.store.ByID(ctx, id)
		if errors.Is(err, apierr.ErrNotFound) {
			return nil // deleted meanwhile
		}
		if err != nil {
			return err
		}
		if sp.Processed >= sp.Generation {
			return nil // already done (a resumed job)
		}
		if err := s.store.SetState(ctx, sp.ID, sp.Generation, StateProgress); errors.Is(err, apierr.ErrNotFound) {
			continue
		} else if err != nil {
			return err
		}
		res, err := s.process(ctx, sp)
		if ctx.Err() != nil {
			return ctx.Err() // stopping: the job is handed back and fetches again
		}
		if err != nil {
			return err
		}
		final := sp
		final.Processed, final.State = res.Generation, StateComplete
		final.LastProcessedAt, final.LastErrorCode, final.LastErrors = &res.ProcessedAt, res.ErrorCode, res.Errors
		if res.Version != nil {
			final.LastVersion, final.LastDigest = res.Version.ID, res.Digest
		}
		err = s.store.Finish(ctx, sp.ID, res, integrationsapi.NewOpenAPISpecProcessed(sp.Organization, sp.ID, s.view(final, access.Caller{})))
		if errors.Is(err, apierr.ErrNotFound) {
			continue // replaced or deleted meanwhile: look again
		}
		return err
	}
	return errors.New("the spec kept changing while it was processed")
}

// process fetches and parses one generation of sp. Problems of the source
// are the result's error code; only the service's own failures (storage)
// are errors.
func (s *Service) process(ctx context.Context, sp Spec) (Result, error) {
	res := Result{Generation: sp.Generation}
	raw, code, msg := s.fetch(ctx, sp)
	var doc parsed
	if code == "" {
		var m string
		var err error
		if doc, m, err = s.parse(ctx, raw); err != nil {
			return res, err
		} else if m != "" {
			code, msg = ErrParse, m
		}
	}
	res.ProcessedAt = s.clock()
	if code != "" {
		res.ErrorCode, res.Errors = code, []ErrorObject{{Message: msg, Code: code}}
		return res, nil
	}
	sum := sha256.Sum256(raw)
	res.Digest = hex.EncodeToString(sum[:])
	if res.Digest == sp.LastDigest {
		return res, nil // the same content: no new version
	}
	v := Version{ID: versionID(sp.ID, sp.Generation), Spec: sp.ID, Organization: sp.Organization, Digest: res.Digest,
		Format: doc.format, SourceURL: sp.SourceURL, Size: int64(len(raw)), CreatedAt: res.ProcessedAt}
	// The JSON rendering is stored once, here: reading the content streams it.
	if err := s.store.InsertVersion(ctx, v, raw, doc.rendered); err != nil {
		return res, fmt.Errorf("store version of spec %s: %w", sp.ID, err)
	}
	res.Version = &v
	return res, nil
}

// versionID is the id of the version a generation makes: the same for a
// resumed job, so that a crash between storing the version and recording
// it never makes two.
func versionID(spec string, generation int64) string {
	sum := sha256.Sum256([]byte(spec + "/" + strconv.FormatInt(generation, 10)))
	return hex.EncodeToString(sum[:12])
}

// parsed is what parsing learnt of a document: its format and, for YAML,
// its JSON rendering (a JSON document is its own).
type parsed struct {
	format   string
	rendered []byte
}

// fetch reads the source of sp's generation: its text, or its URL through
// the guard within the fetch timeout and MaxSpecBytes.
func (s *Service) fetch(ctx context.Context, sp Spec) ([]byte, string, string) {
	if sp.SourceURL == "" {
		text, err := s.store.Text(ctx, sp.ID, sp.Generation)
		if err != nil {
			return nil, ErrFetch, "the text source could not be read"
		}
		return text, "", ""
	}
	fctx, cancel := context.WithTimeout(ctx, s.cfg.FetchTimeout)
	defer cancel()
	res, err := s.cfg.Guard.Fetch(fctx, sp.SourceURL, s.cfg.FetchTimeout)
	if err != nil {
		return nil, fetchCode(err), "the source URL could not be fetched"
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, ErrFetch, fmt.Sprintf("the source URL answered HTTP %d", res.StatusCode)
	}
	if res.ContentLength > MaxSpecBytes {
		return nil, ErrFetch, fmt.Sprintf("the source is larger than %d bytes", MaxSpecBytes)
	}
	var buf bytes.Buffer
	n, err := io.Copy(&buf, io.LimitReader(res.Body, MaxSpecBytes+1))
	if err != nil {
		return nil, fetchCode(err), "the source could not be read"
	}
	if n > MaxSpecBytes {
		return nil, ErrFetch, fmt.Sprintf("the source is larger than %d bytes", MaxSpecBytes)
	}
	return buf.Bytes(), "", ""
}

func fetchCode(err error) string {
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return ErrFetchTimeout
	}
	return ErrFetch
}

// parse checks raw against the limits (Bounds), then parses it with the
// OpenAPI library in a goroutine of its own, holding one of the service's
// parse slots until the library returns: the job stops waiting when its
// context ends (the worker stops) or after the parse timeout (a problem
// naming it), and a parse the job no longer waits for still holds its
// slot, so that abandoned parses never pile up. A YAML document is
// rendered as JSON before (its decoded nodes are let go before the library
// decodes it again). It returns the format and rendering, what is wrong
// with the document ("" when nothing is), and an error only when ctx ended.
func (s *Service) parse(ctx context.Context, raw []byte) (parsed, string, error) {
	_, node, problem := bound(raw)
	if problem != "" {
		return parsed{}, problem, nil
	}
	doc := parsed{format: "json"}
	if node != nil {
		rendered, err := renderJSON(raw, node)
		if err != nil {
			return parsed{}, err.Error(), nil
		}
		doc = parsed{format: "yaml", rendered: rendered}
	}
	if err := ctx.Err(); err != nil {
		return parsed{}, "", err
	}
	select {
	case s.parses <- struct{}{}:
	case <-ctx.Done():
		return parsed{}, "", ctx.Err()
	}
	done := make(chan string, 1)
	go func() {
		defer func() { <-s.parses }()
		done <- parseDocument(raw)
	}()
	t := time.NewTimer(s.cfg.ParseTimeout)
	defer t.Stop()
	select {
	case problem := <-done:
		return doc, problem, nil
	case <-ctx.Done():
		return parsed{}, "", ctx.Err()
	case <-t.C:
		return parsed{}, fmt.Sprintf("the document took longer than %s to parse", s.cfg.ParseTimeout), nil
	}
}

// Parse checks an OpenAPI 3.x or Swagger 2.0 document (JSON or YAML)
// against the limits, then parses it with its local $refs resolved; it
// says what is wrong, "" when nothing is. Circular references are allowed
// (they are legal).
func Parse(raw []byte) string {
	if _, problem := Bounds(raw); problem != "" {
		return problem
	}
	return parseDocument(raw)
}

// parseDocument is Parse without the limits.
func parseDocument(raw []byte) (problem string) {
	defer func() {
		if p := recover(); p != nil {
			problem = "the document could not be parsed"
		}
	}()
	cfg := datamodel.NewDocumentConfiguration()
	cfg.AllowFileReferences, cfg.AllowRemoteReferences = false, false
	doc, err := libopenapi.NewDocumentWithConfiguration(raw, cfg)
	if err != nil {
		return "not an OpenAPI or Swagger document: " + firstLine(err)
	}
	defer doc.Release()
	info := doc.GetSpecInfo()
	switch info.SpecFormat {
	case datamodel.OAS2:
		m, err := doc.BuildV2Model()
		if m == nil {
			return "invalid Swagger 2.0 document: " + firstLine(err)
		}
		if err := fatal(err); err != nil {
			return "invalid Swagger 2.0 document: " + firstLine(err)
		}
		if m.Model.Info == nil || m.Model.Info.Title == "" || m.Model.Info.Version == "" {
			return "info.title and info.version are required"
		}
		if m.Model.Paths == nil {
			return "paths is required"
		}
	case datamodel.OAS3, datamodel.OAS31, datamodel.OAS32:
		m, err := doc.BuildV3Model()
		if m == nil {
			return "invalid OpenAPI document: " + firstLine(err)
		}
		if err := fatal(err); err != nil {
			return "invalid OpenAPI document: " + firstLine(err)
		}
		if m.Model.Info == nil || m.Model.Info.Title == "" || m.Model.Info.Version == "" {
			return "info.title and info.version are required"
		}
		if info.SpecFormat == datamodel.OAS3 && m.Model.Paths == nil {
			return "paths is required"
		}
	default:
		return "not an OpenAPI 3.x or Swagger 2.0 document"
	}
	return ""
}

// fatal drops the circular-reference errors a model build reports.
func fatal(err error) error {
	if err == nil {
		return nil
	}
	var keep []error
	var unwrap interface{ Unwrap() []error }
	list := []error{err}
	if errors.As(err, &unwrap) {
		list = unwrap.Unwrap()
	}
	for _, e := range list {
		if !isCircular(e) {
			keep = append(keep, e)
		}
	}
	return errors.Join(keep...)
}

func firstLine(err error) string {
	if err == nil {
		return "unknown problem"
	}
	msg := err.Error()
	if i := bytes.IndexByte([]byte(msg), '\n'); i >= 0 {
		msg = msg[:i]
	}
	if len(msg) > 300 {
		msg = msg[:300]
	}
	return msg
}

// Sweep enqueues the processing of specs whose generation is unprocessed
// and that changed more than a while ago (their enqueue failed, or raced
// the end of the previous job), until ctx is done.
func (s *Service) Sweep(ctx context.Context, every time.Duration) error {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		sps, err := s.store.Unprocessed(ctx, s.clock().Add(-every), 100)
		if err != nil {
			if ctx.Err() == nil {
				s.log.WarnContext(ctx, "find unprocessed OpenAPI specs", "err", err)
			}
			continue
		}
		for _, sp := range sps {
			s.enqueue(ctx, sp)
		}
	}
}
