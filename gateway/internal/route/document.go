package route

import (
	"fmt"
	"strings"

	"github.com/docspub/platform/libs/apidoc"
)

// Services the gateway names itself. Every other service name comes from
// the API document's x-service; all are the names discovery resolves.
const (
	Identity = "identity"
	Sites    = "sites"
	// Insights' writes (readers' events, aggregate queries) change no
	// published page: they purge nothing (internal/api).
	Insights = "insights"
	// Gateway answers its own operations (the API document and its
	// reference page) itself: they are no route of the table.
	Gateway = "gateway"
)

// Documented returns the routes of the API document (libs/apidoc), the one
// place that declares which service owns which public path: every operation
// but the gateway's own, its x-service the route's service. A path
// parameter the document marks as taking the rest of the path becomes a
// "{name...}" segment.
func Documented() ([]Route, error) {
	ops, err := apidoc.Routes()
	if err != nil {
		return nil, err
	}
	out := make([]Route, 0, len(ops))
	for _, op := range ops {
		if op.Service == Gateway {
			continue
		}
		r := Route{Method: op.Method, Pattern: op.Path, Service: op.Service}
		if op.Rest {
			if !strings.HasSuffix(op.Path, "}") {
				return nil, fmt.Errorf("route %s %s: the rest parameter must be the last segment", op.Method, op.Path)
			}
			r.Pattern = strings.TrimSuffix(op.Path, "}") + "...}"
		}
		out = append(out, r)
	}
	return out, nil
}

// FromDocument builds the table of the API document's routes (Documented).
func FromDocument() (*Table, error) {
	routes, err := Documented()
	if err != nil {
		return nil, err
	}
	return New(routes)
}
