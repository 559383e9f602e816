package merge

import (
	"fmt"

	"github.com/docspub/platform/services/content/internal/revision"
)

// kind tells mergeByID how to merge one kind of item.
type kind[T any] struct {
	id func(*T) string
	// changed reports whether a side changed an item of base.
	changed func(b, s *T) bool
	// merge merges an item both sides have (b is the zero item when base
	// has none); reasons name what conflicts, ours' value is kept there.
	merge func(b, o, t *T) (T, []string)
	// conflict makes a conflict about an item.
	conflict func(id, reason string) Conflict
}

// mergeByID merges lists of items by id: an item added on one side is
// kept, one deleted on one side is deleted unless the other side changed it
// (a conflict), one both sides have is merged. The result has ours' order,
// then theirs' additions in theirs' order.
func mergeByID[T any](k kind[T], base, ours, theirs []T) ([]T, []Conflict) {
	bm, om, tm := byID(k, base), byID(k, ours), byID(k, theirs)
	out := make([]T, 0, len(ours)+len(theirs))
	var conflicts []Conflict
	for i := range ours {
		o := &ours[i]
		id := k.id(o)
		if om[id] != o {
			continue // a duplicate id; the first one wins
		}
		b, t := bm[id], tm[id]
		switch {
		case t != nil:
			var zero T
			if b == nil {
				b = &zero
			}
			v, reasons := k.merge(b, o, t)
			for _, r := range reasons {
				conflicts = append(conflicts, k.conflict(id, r))
			}
			out = append(out, v)
		case b == nil: // added by ours
			out = append(out, *o)
		case k.changed(b, o): // deleted by theirs, changed by ours
			conflicts = append(conflicts, k.conflict(id, "deleted by theirs but changed by ours"))
			out = append(out, *o)
		}
	}
	for i := range theirs {
		t := &theirs[i]
		id := k.id(t)
		if tm[id] != t || om[id] != nil {
			continue
		}
		switch b := bm[id]; {
		case b == nil: // added by theirs
			out = append(out, *t)
		case k.changed(b, t): // deleted by ours, changed by theirs
			conflicts = append(conflicts, k.conflict(id, "deleted by ours but changed by theirs"))
		}
	}
	return out, conflicts
}

func byID[T any](k kind[T], items []T) map[string]*T {
	m := make(map[string]*T, len(items))
	for i := range items {
		id := k.id(&items[i])
		if m[id] == nil {
			m[id] = &items[i]
		}
	}
	return m
}

// fileContent is what makes a file's bytes: a change of either is a change
// of the file's content.
type fileContent struct{ blob, contentType string }

func contentOf(f *revision.File) fileContent { return fileContent{f.Blob, f.ContentType} }

var files = kind[revision.File]{
	id: func(f *revision.File) string { return f.ID },
	changed: func(b, s *revision.File) bool {
		return b.Name != s.Name || contentOf(b) != contentOf(s)
	},
	merge: func(b, o, t *revision.File) (revision.File, []string) {
		var reasons []string
		f := *o
		name, ok := pick(b.Name, o.Name, t.Name)
		if !ok {
			reasons = append(reasons, fmt.Sprintf("renamed on both sides (ours %q, theirs %q)", o.Name, t.Name))
		}
		f.Name = name
		switch c, ok := pick(contentOf(b), contentOf(o), contentOf(t)); {
		case !ok:
			reasons = append(reasons, fmt.Sprintf("content replaced on both sides (ours blob %s, theirs blob %s)", o.Blob, t.Blob))
		case c != contentOf(o): // theirs replaced it: its size and dimensions come along
			f.Blob, f.ContentType, f.Size, f.Width, f.Height = t.Blob, t.ContentType, t.Size, t.Width, t.Height
		}
		return f, reasons
	},
	conflict: func(id, reason string) Conflict { return Conflict{FileID: id, Reason: reason} },
}

var reusables = kind[revision.ReusableContent]{
	id: func(r *revision.ReusableContent) string { return r.ID },
	changed: func(b, s *revision.ReusableContent) bool {
		return b.Title != s.Title || b.Markdown != s.Markdown
	},
	merge: func(b, o, t *revision.ReusableContent) (revision.ReusableContent, []string) {
		var reasons []string
		r := *o
		title, ok := pick(b.Title, o.Title, t.Title)
		if !ok {
			reasons = append(reasons, fmt.Sprintf("title changed on both sides (ours %q, theirs %q)", o.Title, t.Title))
		}
		r.Title = title
		md, rs := mergeText(b.Markdown, o.Markdown, t.Markdown)
		if len(rs) > 0 {
			reasons = append(reasons, "markdown changed differently on both sides at "+describe(rs)+" (of the common version)")
		}
		r.Markdown = md
		return r, reasons
	},
	conflict: func(id, reason string) Conflict { return Conflict{ReusableContentID: id, Reason: reason} },
}

func mergeFiles(base, ours, theirs []revision.File) ([]revision.File, []Conflict) {
	return mergeByID(files, base, ours, theirs)
}

func mergeReusable(base, ours, theirs []revision.ReusableContent) ([]revision.ReusableContent, []Conflict) {
	return mergeByID(reusables, base, ours, theirs)
}

// redirects merge by their path: the page a redirect goes to is its content.
var redirects = kind[revision.Redirect]{
	id:      func(r *revision.Redirect) string { return r.Path },
	changed: func(b, s *revision.Redirect) bool { return b.Page != s.Page },
	merge: func(b, o, t *revision.Redirect) (revision.Redirect, []string) {
		page, ok := pick(b.Page, o.Page, t.Page)
		if !ok {
			return *o, []string{fmt.Sprintf("sent to different pages on both sides (ours %s, theirs %s)", o.Page, t.Page)}
		}
		return revision.Redirect{Path: o.Path, Page: page}, nil
	},
	conflict: func(path, reason string) Conflict {
		return Conflict{Reason: fmt.Sprintf("redirect %q: %s", path, reason)}
	},
}

// mergeRedirects merges redirects; none on any side is none (nil).
func mergeRedirects(base, ours, theirs []revision.Redirect) ([]revision.Redirect, []Conflict) {
	out, cs := mergeByID(redirects, base, ours, theirs)
	if len(out) == 0 {
		out = nil
	}
	return out, cs
}
