package reader

import "testing"

// TestBrokenLinks: GitBook exports a link to a page or space it no longer
// has as /broken/… (GitbookIO/public-docs,
// guides/editing-and-publishing-documentation/how-to-write-documentation-with-ai.md:
// "(/broken/spaces/NkEGS7hzeqa35sMXQZ4X/pages/KHHFlE1MtpVIaZboN8b2)",
// guides/editing-and-publishing-documentation/import-or-migrate-your-content-to-gitbook-with-git-sync.md:
// "(/broken/pages/gEJCes43tXugzashxJNV)"): the link is text.
func TestBrokenLinks(t *testing.T) {
	l := &pageLinks{}
	for _, dest := range []string{"/broken/spaces/NkEGS7hzeqa35sMXQZ4X/pages/KHHFlE1MtpVIaZboN8b2",
		"/broken/pages/gEJCes43tXugzashxJNV", "/broken/pages/gEJCes43tXugzashxJNV#setup", " /broken/pages/x "} {
		if u, ok := l.Resolve(dest); ok || u != "" {
			t.Errorf("%q resolved to %q", dest, u)
		}
	}
	for _, dest := range []string{"https://example.com/broken/pages/x", "/brokenish/x", "https://app.gitbook.com/s/NkEGS7hzeqa35sMXQZ4X/x"} {
		if u, ok := l.Resolve(dest); !ok || u != dest {
			t.Errorf("%q resolved to %q %v", dest, u, ok)
		}
	}
}
