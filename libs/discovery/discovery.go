// Package discovery finds the base URL of a platform service. Static reads a
// fixed map (environment or local runner); a Consul resolver comes with the
// deployment work and satisfies the same Resolver interface.
package discovery

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/docspub/platform/libs/apierr"
)

// Resolver returns the base URL ("http://host:port") of a service.
type Resolver interface {
	Resolve(ctx context.Context, service string) (string, error)
}

// Static resolves from a fixed map of service name to base URL.
type Static map[string]string

// Resolve returns the configured URL or a 503 error when the service is unknown.
func (s Static) Resolve(_ context.Context, service string) (string, error) {
	u, ok := s[service]
	if !ok || u == "" {
		return "", apierr.New(503, "service %s is not available", service)
	}
	return u, nil
}

// ParseStatic parses "identity=http://127.0.0.1:8081,content=http://..." .
func ParseStatic(spec string) (Static, error) {
	s := Static{}
	for _, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, raw, ok := strings.Cut(part, "=")
		if !ok {
			return nil, fmt.Errorf("upstream %q: want name=url", part)
		}
		u, err := url.Parse(strings.TrimSpace(raw))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("upstream %q: want an http(s) URL", part)
		}
		s[strings.TrimSpace(name)] = strings.TrimRight(u.String(), "/")
	}
	return s, nil
}

// String formats the map as ParseStatic reads it, sorted by name.
func (s Static) String() string {
	names := make([]string, 0, len(s))
	for n := range s {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + "=" + s[n]
	}
	return strings.Join(parts, ",")
}
