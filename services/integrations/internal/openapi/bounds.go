package openapi

import (
	"github.com/docspub/platform/libs/specbounds"
	"github.com/docspub/platform/services/integrations/internal/limits"
	"go.yaml.in/yaml/v3"
)

// Measure is what the pre-pass found in a document.
type Measure = specbounds.Measure

// specLimits are the integrations service's bounds of a spec (limits).
var specLimits = specbounds.Limits{
	YAMLTokens: limits.SpecYAMLTokens, Nodes: limits.SpecNodes, Depth: limits.SpecDepth, Refs: limits.SpecRefs,
	RefDepth: limits.RefDepth, RefWork: limits.RefWork, Aliases: limits.SpecAliases,
}

// Bounds checks a document against the limits before the OpenAPI library
// loads it (specbounds.Check): what it measured and a problem naming the
// first limit exceeded ("" when none).
func Bounds(raw []byte) (Measure, string) {
	m, _, problem := bound(raw)
	return m, problem
}

// bound is Bounds that also returns a YAML document's decoded nodes (nil
// for JSON), for rendering it as JSON without decoding it again.
func bound(raw []byte) (Measure, *yaml.Node, string) {
	return specbounds.Check(raw, specLimits)
}
