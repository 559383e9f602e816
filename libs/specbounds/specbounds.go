// Package specbounds measures an OpenAPI document (JSON or YAML) against
// bounds before a parsing library loads it, in time and memory linear in
// its size: its nodes, depth, $refs, $ref chains and YAML aliases. The
// integrations service checks every spec it processes with it, and sites
// every spec a published page's API block reads.
package specbounds

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"unsafe"

	"go.yaml.in/yaml/v3"
)

// Limits are the bounds a document is checked against.
type Limits struct {
	// YAMLTokens bounds, before a YAML document is decoded, an upper bound
	// of its nodes counted over its bytes: its lines and the indicators
	// after which a node can start ("-:,?[{").
	YAMLTokens int
	// Nodes bounds the JSON values or YAML nodes, keys included (aliases
	// expanded).
	Nodes int
	// Depth bounds how deeply objects and arrays nest.
	Depth int
	// Refs bounds the $ref occurrences.
	Refs int
	// RefDepth bounds the longest chain of local $refs, cycles cut.
	RefDepth int
	// RefWork bounds the sum, over every $ref, of the chain it starts.
	RefWork int
	// Aliases bounds YAML aliases (*name).
	Aliases int
}

// Measure is what the pre-pass found in a document.
type Measure struct {
	Nodes, Depth, Refs, Aliases int
	RefDepth                    int // the longest chain of local $refs, cycles cut
	RefWork                     int // the sum over every $ref of the chain it starts
}

// Check measures a document against l before an OpenAPI library loads it,
// in time and memory linear in its size: JSON is scanned in place
// (json.Valid first, then a scanner that allocates only for $ref targets);
// YAML is decoded once into yaml.Node and walked. It returns what it
// measured, a YAML document's decoded nodes (nil for JSON: for rendering it
// as JSON without decoding it again) and a problem naming the first limit
// exceeded ("" when none).
func Check(raw []byte, l Limits) (Measure, *yaml.Node, string) {
	b := bounder{l: l}
	var doc *yaml.Node
	if looksJSON(raw) && json.Valid(raw) {
		b.json(raw)
	} else {
		if n := yamlTokens(raw); n > b.l.YAMLTokens {
			b.fail("the YAML document has more than %d lines and indicators (-:,?[{), a bound of its nodes checked before decoding it", b.l.YAMLTokens)
			return b.m, nil, b.problem
		}
		doc = &yaml.Node{}
		if err := yaml.Unmarshal(raw, doc); err != nil {
			return b.m, nil, "not valid YAML or JSON: " + firstLine(err)
		}
		b.yaml(doc)
	}
	if b.problem == "" {
		b.chains()
	}
	return b.m, doc, b.problem
}

// yamlTokens bounds from above the nodes of a YAML document in one pass
// over its bytes: every node starts on a line of its own or after one of
// the indicators "-:,?[{" (quoted and block text count too: it is a bound).
func yamlTokens(raw []byte) int {
	n := 1
	for _, c := range raw {
		switch c {
		case '\n', '-', ':', ',', '?', '[', '{':
			n++
		}
	}
	return n
}

func looksJSON(raw []byte) bool {
	t := bytes.TrimLeft(raw, " \t\r\n")
	return len(t) > 0 && (t[0] == '{' || t[0] == '[')
}

// bounder measures one document in two walks: the first counts nodes,
// depth and $refs and collects the local $ref targets; the second (only
// within bounds) finds, for every $ref, the target it sits under, making
// the graph whose longest path is the $ref chain depth.
type bounder struct {
	l       Limits
	m       Measure
	problem string

	targets map[string]int     // local $ref target (as written) → graph node
	trie    *trieNode          // the targets' JSON pointers, by segment
	uses    []int              // $ref occurrences per target
	edges   [][]int            // target → targets its subtree refers to
	root    []int              // targets referred to from outside every target
	second  bool               // the second walk
	sizes   map[*yaml.Node]int // YAML nodes' sizes, aliases expanded
}

type trieNode struct {
	next   map[string]*trieNode
	target int // graph node when a target ends here, else -1
}

func (b *bounder) fail(format string, args ...any) {
	if b.problem == "" {
		b.problem = fmt.Sprintf(format, args...)
	}
}

// node counts one node at depth d; false stops the walk.
func (b *bounder) node(d int) bool {
	if b.second {
		return true
	}
	b.m.Nodes++
	if d > b.m.Depth {
		b.m.Depth = d
	}
	switch {
	case b.m.Nodes > b.l.Nodes:
		b.fail("the document has more than %d nodes (JSON values or YAML nodes, keys included)", b.l.Nodes)
	case d > b.l.Depth:
		b.fail("the document nests deeper than %d levels", b.l.Depth)
	}
	return b.problem == ""
}

// ref records a $ref whose value is v, in the subtree of graph node owner
// (-1: of no target).
func (b *bounder) ref(v string, owner int) bool {
	if !b.second {
		b.m.Refs++
		if b.m.Refs > b.l.Refs {
			b.fail("the document has more than %d $refs", b.l.Refs)
			return false
		}
		if strings.HasPrefix(v, "#") {
			if b.targets == nil {
				b.targets = map[string]int{}
			}
			if _, ok := b.targets[v]; !ok {
				b.targets[strings.Clone(v)] = len(b.targets)
			}
		}
		return true
	}
	t, ok := b.targets[v]
	if !ok {
		return true // remote or file: the library is not allowed to follow them
	}
	b.uses[t]++
	if owner < 0 {
		b.root = append(b.root, t)
	} else {
		b.edges[owner] = append(b.edges[owner], t)
	}
	return true
}

// prepare builds the trie of targets for the second walk.
func (b *bounder) prepare() {
	b.second = true
	b.trie = &trieNode{target: -1}
	b.uses = make([]int, len(b.targets))
	b.edges = make([][]int, len(b.targets))
	for v, id := range b.targets {
		n := b.trie
		for _, seg := range pointer(v) {
			c := n.next[seg]
			if c == nil {
				c = &trieNode{target: -1}
				if n.next == nil {
					n.next = map[string]*trieNode{}
				}
				n.next[seg] = c
			}
			n = c
		}
		n.target = id
	}
}

// pointer splits a local $ref ("#/components/schemas/A~1B") into its
// unescaped segments.
func pointer(ref string) []string {
	frag := strings.TrimPrefix(ref, "#")
	if u, err := url.PathUnescape(frag); err == nil {
		frag = u
	}
	frag = strings.TrimPrefix(frag, "/")
	if frag == "" {
		return nil
	}
	segs := strings.Split(frag, "/")
	for i, s := range segs {
		segs[i] = strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
	}
	return segs
}

// step is the trie node and graph owner of a child under key.
func step(t *trieNode, owner int, key string) (*trieNode, int) {
	if t == nil || t.next == nil {
		return nil, owner
	}
	c := t.next[key]
	if c != nil && c.target >= 0 {
		owner = c.target
	}
	return c, owner
}

// chains computes the longest $ref chain (a depth-first walk, memoised,
// cycles cut where they close: libopenapi stops there too) and the work
// of resolving every $ref on its own.
func (b *bounder) chains() {
	if len(b.targets) == 0 {
		return
	}
	const (
		unseen = iota
		onPath
		finished
	)
	state := make([]uint8, len(b.targets))
	depth := make([]int, len(b.targets))
	var visit func(v int) int
	visit = func(v int) int {
		switch state[v] {
		case onPath:
			return 0
		case finished:
			return depth[v]
		}
		state[v] = onPath
		d := 0
		for _, c := range b.edges[v] {
			d = max(d, visit(c))
		}
		state[v], depth[v] = finished, d+1
		return d + 1
	}
	work := 0
	for id := range depth {
		d := visit(id)
		b.m.RefDepth = max(b.m.RefDepth, d)
		work += b.uses[id] * d
	}
	b.m.RefWork = work
	switch {
	case b.m.RefDepth > b.l.RefDepth:
		b.fail("a chain of $refs is longer than %d (%d)", b.l.RefDepth, b.m.RefDepth)
	case work > b.l.RefWork:
		b.fail("resolving the document's $refs takes more than %d steps (%d $refs along chains of up to %d)",
			b.l.RefWork, b.m.Refs, b.m.RefDepth)
	}
}

// yaml walks a decoded YAML document twice.
func (b *bounder) yaml(doc *yaml.Node) {
	b.yamlWalk(doc, 0, b.trie, -1)
	if b.problem != "" {
		return
	}
	b.prepare()
	b.yamlWalk(doc, 0, b.trie, -1)
}

func (b *bounder) yamlWalk(n *yaml.Node, d int, t *trieNode, owner int) bool {
	if !b.node(d) {
		return false
	}
	switch n.Kind {
	case yaml.AliasNode:
		// Not walked again, but counted as the nodes it stands for: the
		// library expands it.
		if !b.second {
			b.m.Aliases++
			if b.m.Aliases > b.l.Aliases {
				b.fail("the document has more than %d YAML aliases", b.l.Aliases)
				return false
			}
			b.m.Nodes += b.expanded(n.Alias, 0)
			if b.m.Nodes > b.l.Nodes {
				b.fail("the document has more than %d nodes (JSON values or YAML nodes, keys included), its aliases expanded", b.l.Nodes)
				return false
			}
		}
	case yaml.DocumentNode:
		for _, c := range n.Content {
			if !b.yamlWalk(c, d, t, owner) {
				return false
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			ct, co := t, owner
			if b.second {
				ct, co = step(t, owner, strconv.Itoa(i))
			}
			if !b.yamlWalk(c, d+1, ct, co) {
				return false
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if !b.node(d + 1) {
				return false
			}
			if k.Value == "$ref" && v.Kind == yaml.ScalarNode {
				if !b.ref(v.Value, owner) {
					return false
				}
			}
			ct, co := t, owner
			if b.second {
				ct, co = step(t, owner, k.Value)
			}
			if !b.yamlWalk(v, d+1, ct, co) {
				return false
			}
		}
	}
	return true
}

// expanded is the number of nodes n stands for, aliases expanded
// (memoised: linear in the document).
func (b *bounder) expanded(n *yaml.Node, d int) int {
	if n == nil || d > b.l.Depth {
		return 1
	}
	if v, ok := b.sizes[n]; ok {
		return v
	}
	if b.sizes == nil {
		b.sizes = map[*yaml.Node]int{}
	}
	b.sizes[n] = 1 // a cycle counts once
	size := 1
	if n.Kind == yaml.AliasNode {
		size = b.expanded(n.Alias, d+1)
	}
	for _, c := range n.Content {
		size += b.expanded(c, d+1)
		if size > b.l.Nodes {
			break
		}
	}
	b.sizes[n] = size
	return size
}

// json scans valid JSON twice.
func (b *bounder) json(raw []byte) {
	s := scanner{b: b, src: raw}
	s.value(0, nil, -1)
	if b.problem != "" {
		return
	}
	b.prepare()
	s = scanner{b: b, src: raw}
	s.value(0, b.trie, -1)
}

// scanner walks JSON already known to be valid (json.Valid), allocating
// only for keys and $ref values that hold escapes.
type scanner struct {
	b   *bounder
	src []byte
	i   int
}

func (s *scanner) space() {
	for s.i < len(s.src) {
		switch s.src[s.i] {
		case ' ', '\t', '\r', '\n':
			s.i++
		default:
			return
		}
	}
}

// str reads a string at s.i and returns its content (unescaped only when
// it holds escapes).
func (s *scanner) str() string {
	start := s.i
	s.i++ // the quote
	escaped := false
	for s.i < len(s.src) {
		switch s.src[s.i] {
		case '\\':
			escaped = true
			s.i += 2
			continue
		case '"':
			s.i++
			if !escaped {
				return unsafeString(s.src[start+1 : s.i-1])
			}
			var out string
			_ = json.Unmarshal(s.src[start:s.i], &out)
			return out
		}
		s.i++
	}
	return ""
}

func (s *scanner) value(d int, t *trieNode, owner int) bool {
	if !s.b.node(d) {
		return false
	}
	s.space()
	if s.i >= len(s.src) {
		return false
	}
	switch s.src[s.i] {
	case '{':
		s.i++
		for {
			s.space()
			if s.src[s.i] == '}' {
				s.i++
				return true
			}
			if s.src[s.i] == ',' {
				s.i++
				s.space()
			}
			key := s.str()
			if !s.b.node(d + 1) {
				return false
			}
			s.space()
			s.i++ // the colon
			s.space()
			if key == "$ref" && s.src[s.i] == '"' {
				save := s.i
				v := s.str()
				if !s.b.ref(v, owner) {
					return false
				}
				s.i = save
			}
			ct, co := t, owner
			if s.b.second {
				ct, co = step(t, owner, key)
			}
			if !s.value(d+1, ct, co) {
				return false
			}
		}
	case '[':
		s.i++
		for n := 0; ; n++ {
			s.space()
			if s.src[s.i] == ']' {
				s.i++
				return true
			}
			if s.src[s.i] == ',' {
				s.i++
			}
			ct, co := t, owner
			if s.b.second && t != nil && t.next != nil {
				ct, co = step(t, owner, strconv.Itoa(n))
			} else {
				ct = nil
			}
			if !s.value(d+1, ct, co) {
				return false
			}
		}
	case '"':
		s.str()
	default: // number, true, false, null
		for s.i < len(s.src) {
			switch s.src[s.i] {
			case ',', '}', ']', ' ', '\t', '\r', '\n':
				return true
			}
			s.i++
		}
	}
	return true
}

// unsafeString views b as a string without copying; the scanner's source
// is never changed while the string is used.
func unsafeString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// firstLine is err's first line, at most 300 bytes.
func firstLine(err error) string {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	if len(msg) > 300 {
		msg = msg[:300]
	}
	return msg
}
