// Package route maps a request's method and path to the platform service that
// owns it. The table is built from the API document (Documented): the
// document's x-service is the single place that says which service owns
// which public path.
//
// Matching is segment-wise: a "{name}" segment of a pattern matches exactly one
// non-empty path segment, and a literal segment wins over a parameter at the
// same position. Matching is method-aware: a path that exists only with other
// methods yields the methods it allows (405), an unknown path yields none (404).
package route

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// Route is one row of the table.
type Route struct {
	Method string
	// Pattern is the path with "{name}" parameters: "/v1/orgs/{organizationId}/members".
	Pattern string
	// Service is the name of the owning service, as discovery resolves it.
	Service string
}

// Table matches requests against a set of routes.
type Table struct {
	root *node
}

type node struct {
	literal map[string]*node
	param   *node
	rest    *node // a last {name...} segment: one or more remaining segments
	byVerb  map[string]Route
}

// New builds a table. It reports every malformed or duplicate route at once.
func New(routes []Route) (*Table, error) {
	t := &Table{root: &node{}}
	var errs []error
	for _, r := range routes {
		if err := t.add(r); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return t, nil
}

func (t *Table) add(r Route) error {
	if r.Method == "" || strings.ToUpper(r.Method) != r.Method {
		return fmt.Errorf("route %q: method %q must be upper case", r.Pattern, r.Method)
	}
	if r.Service == "" {
		return fmt.Errorf("route %s %s: no service", r.Method, r.Pattern)
	}
	if !strings.HasPrefix(r.Pattern, "/") {
		return fmt.Errorf("route %s %s: pattern must start with /", r.Method, r.Pattern)
	}
	n := t.root
	segs := strings.Split(r.Pattern[1:], "/")
	for i, seg := range segs {
		switch {
		case seg == "":
			return fmt.Errorf("route %s %s: empty segment", r.Method, r.Pattern)
		case strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "...}"):
			if i != len(segs)-1 || len(seg) < 6 {
				return fmt.Errorf("route %s %s: a {name...} parameter must be the last segment", r.Method, r.Pattern)
			}
			if n.rest == nil {
				n.rest = &node{}
			}
			n = n.rest
		case strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}"):
			if name := seg[1 : len(seg)-1]; name == "" || strings.ContainsAny(name, "{}") {
				return fmt.Errorf("route %s %s: malformed parameter %q", r.Method, r.Pattern, seg)
			}
			if n.param == nil {
				n.param = &node{}
			}
			n = n.param
		case strings.ContainsAny(seg, "{}"):
			return fmt.Errorf("route %s %s: malformed segment %q", r.Method, r.Pattern, seg)
		default:
			child, ok := n.literal[seg]
			if !ok {
				if n.literal == nil {
					n.literal = map[string]*node{}
				}
				child = &node{}
				n.literal[seg] = child
			}
			n = child
		}
	}
	if prev, dup := n.byVerb[r.Method]; dup {
		return fmt.Errorf("route %s %s: same method and shape as %s", r.Method, r.Pattern, prev.Pattern)
	}
	if n.byVerb == nil {
		n.byVerb = map[string]Route{}
	}
	n.byVerb[r.Method] = r
	return nil
}

// Match returns the route for method and the request's escaped path
// (URL.EscapedPath). When ok is false, allowed lists, sorted, the methods the
// path accepts (answer 405), or is empty when no route has the path (answer 404).
//
// A path segment that is empty, "." or "..", or that decodes to one holding a
// "/", matches nothing: the path a service routes on must be the one matched here.
func (t *Table) Match(method, path string) (r Route, allowed []string, ok bool) {
	segs, valid := split(path)
	if !valid {
		return Route{}, nil, false
	}
	r, ok = t.root.match(segs, method, &allowed)
	if ok {
		return r, nil, true
	}
	slices.Sort(allowed)
	return Route{}, slices.Compact(allowed), false
}

// match walks literal children before the parameter child, so the first route
// found is the most specific one that has method.
func (n *node) match(segs []string, method string, allowed *[]string) (Route, bool) {
	if len(segs) == 0 {
		if r, ok := n.byVerb[method]; ok {
			return r, true
		}
		for m := range n.byVerb {
			*allowed = append(*allowed, m)
		}
		return Route{}, false
	}
	if child, ok := n.literal[segs[0]]; ok {
		if r, ok := child.match(segs[1:], method, allowed); ok {
			return r, true
		}
	}
	if n.param != nil {
		if r, ok := n.param.match(segs[1:], method, allowed); ok {
			return r, true
		}
	}
	if n.rest != nil {
		return n.rest.match(nil, method, allowed)
	}
	return Route{}, false
}

// split returns the decoded segments of an escaped path.
func split(path string) ([]string, bool) {
	if !strings.HasPrefix(path, "/") {
		return nil, false
	}
	segs := strings.Split(path[1:], "/")
	for i, raw := range segs {
		seg, err := url.PathUnescape(raw)
		if err != nil || seg == "" || seg == "." || seg == ".." || strings.Contains(seg, "/") {
			return nil, false
		}
		segs[i] = seg
	}
	return segs, true
}
