package gittest

import (
	"bytes"
	"fmt"
	"math/rand/v2"
)

// SimilarSpecs are n OpenAPI-like YAML files of about size bytes each
// (.gitbook/assets/spec-NN.yaml), drawn from seed: the same paragraphs in
// sections of 40, the sections in another order in each file, as an
// editor moves whole operations around. What a repository of many specs
// of one API holds, and what Git stores as deltas of one another whose
// copies read their base out of order.
func SimilarSpecs(seed uint64, n, size int) map[string][]byte {
	rng := rand.New(rand.NewPCG(seed, 1))
	var paras [][]byte
	for total := 0; total < size; {
		p := fmt.Appendf(nil, "  /things/%d:\n    get:\n      summary: read thing %d\n      description: the property description of thing %d, %x\n",
			len(paras), len(paras), len(paras), rng.Uint64())
		paras = append(paras, p)
		total += len(p)
	}
	out := map[string][]byte{}
	for i := range n {
		var b bytes.Buffer
		fmt.Fprintf(&b, "openapi: 3.0.0\ninfo:\n  title: spec %d\npaths:\n", i)
		for _, s := range rng.Perm((len(paras) + 39) / 40) {
			fmt.Fprintf(&b, "  # section %d of spec %d\n", s, i)
			for _, p := range paras[s*40 : min(len(paras), (s+1)*40)] {
				b.Write(p)
			}
		}
		out[fmt.Sprintf(".gitbook/assets/spec-%02d.yaml", i)] = b.Bytes()
	}
	return out
}
