package revision

import (
	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/services/content/internal/limits"
)

// Size is how big a revision is: its pages, files, markdown bytes (of
// pages and reusable contents) and redirects.
type Size struct {
	Pages     int
	Files     int
	Markdown  int
	Redirects int
}

// Size measures the revision.
func (r Revision) Size() Size {
	s := Size{Files: len(r.Files), Redirects: len(r.Redirects)}
	for _, f := range Flatten(r.Pages) {
		s.Pages++
		s.Markdown += len(f.Page.Markdown)
	}
	for _, rc := range r.ReusableContents {
		s.Markdown += len(rc.Markdown)
	}
	return s
}

// Check refuses, with a 413, a revision over the limits of one revision:
// its pages, files, markdown and redirects.
func (r Revision) Check() error {
	s := r.Size()
	switch {
	case s.Pages > limits.RevisionPages:
		return apierr.TooLarge("a revision holds at most %d pages; this one would hold %d", limits.RevisionPages, s.Pages)
	case s.Files > limits.RevisionFiles:
		return apierr.TooLarge("a revision holds at most %d files; this one would hold %d", limits.RevisionFiles, s.Files)
	case s.Markdown > limits.RevisionMarkdown:
		return apierr.TooLarge("a revision holds at most %d MiB of markdown; this one would hold %.1f MiB",
			limits.RevisionMarkdown>>20, float64(s.Markdown)/(1<<20))
	case s.Redirects > limits.RevisionRedirects:
		return apierr.TooLarge("a revision holds at most %d redirects; this one would hold %d", limits.RevisionRedirects, s.Redirects)
	}
	return nil
}
