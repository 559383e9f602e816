package apidoc

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Route is what a router needs of one operation: its method, its path and
// the service that owns it.
type Route struct {
	Method string
	// Path is as the document writes it: "/v1/spaces/{spaceId}".
	Path string
	// Service owns the operation (x-service).
	Service string
	// Rest is true when the last path parameter takes the rest of the
	// path, slashes included (its parameter carries x-docspub-rest).
	Rest bool
}

// routeOperation is the part of an operation that Routes reads.
type routeOperation struct {
	Service    string `json:"x-service"`
	Parameters []struct {
		Name string `json:"name"`
		In   string `json:"in"`
		Rest bool   `json:"x-docspub-rest"`
	} `json:"parameters"`
}

var routes = sync.OnceValues(func() ([]Route, error) { return readRoutes(document) })

// Routes lists the route of every operation, by path then method. The
// document is read once per process; the caller must not modify the slice.
func Routes() ([]Route, error) { return routes() }

func readRoutes(document []byte) ([]Route, error) {
	var out []Route
	err := eachOperation(document, func(m, p string, raw json.RawMessage) error {
		var op routeOperation
		if err := json.Unmarshal(raw, &op); err != nil {
			return fmt.Errorf("apidoc: %s %s: %w", m, p, err)
		}
		if op.Service == "" {
			return fmt.Errorf("apidoc: %s %s: no x-service", m, p)
		}
		r := Route{Method: m, Path: p, Service: op.Service}
		for _, prm := range op.Parameters {
			if !prm.Rest {
				continue
			}
			if prm.In != "path" || !strings.HasSuffix(p, "/{"+prm.Name+"}") {
				return fmt.Errorf("apidoc: %s %s: x-docspub-rest on %q, which is not the last path parameter", m, p, prm.Name)
			}
			r.Rest = true
		}
		out = append(out, r)
		return nil
	})
	return out, err
}

// eachOperation calls f with every operation of document, by path then
// method, and stops at its first error.
func eachOperation(document []byte, f func(method, path string, raw json.RawMessage) error) error {
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(document, &doc); err != nil {
		return fmt.Errorf("apidoc: %w", err)
	}
	paths := make([]string, 0, len(doc.Paths))
	for p := range doc.Paths {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		for _, m := range methods {
			if raw, ok := doc.Paths[p][strings.ToLower(m)]; ok {
				if err := f(m, p, raw); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
