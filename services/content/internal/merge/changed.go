package merge

import "github.com/docspub/platform/services/content/internal/revision"

// Changed lists the ids of the pages that next added, removed or changed
// compared with base: a changed field or markdown, a new parent or a new
// path (a parent's slug changed). A page that only shifted among its
// siblings is not listed. Pages of next come first, in tree order, then the
// removed ones in base's order.
func Changed(base, next revision.Revision) []string {
	b, n := index(base.Pages), index(next.Pages)
	var out []string
	for _, id := range n.order {
		bn, nn := b.nodes[id], n.nodes[id]
		if bn == nil || bn.parent != nn.parent || bn.path != nn.path || !sameContent(&bn.page, &nn.page) {
			out = append(out, id)
		}
	}
	for _, id := range b.order {
		if n.nodes[id] == nil {
			out = append(out, id)
		}
	}
	return out
}
