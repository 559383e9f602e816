package gitsynchttp

import (
	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/services/content/internal/revision"
	"github.com/docspub/platform/services/content/internal/space"
)

// MaxFiles bounds the files of a request (a Git import's, a files read).
const MaxFiles = space.MaxImportFiles

// importOf is the Git import a request asks for.
func importOf(in contentapi.Import) space.GitImport {
	out := space.GitImport{Parent: in.Parent, Standalone: in.Standalone, Pages: importPages(in.Pages),
		Files: make([]space.ImportFile, len(in.Files))}
	for i, f := range in.Files {
		out.Files[i] = space.ImportFile{Name: f.Name, ContentType: f.ContentType, Blob: f.Blob, Size: f.Size}
	}
	if in.ReusableContents != nil {
		out.ReusableContents = make([]space.ImportReusable, len(in.ReusableContents))
		for i, rc := range in.ReusableContents {
			out.ReusableContents[i] = space.ImportReusable{Title: rc.Title, Markdown: rc.Markdown}
		}
	}
	if g := in.Git; g != nil {
		out.Git = &revision.Git{OID: g.OID, Message: g.Message, Ref: g.Ref, URL: g.URL, CreatedByService: g.CreatedByService}
	}
	if in.GitSync != nil {
		gs := syncIn(*in.GitSync)
		out.Sync = &gs
	}
	if in.Redirects != nil {
		out.Redirects = make([]space.ImportRedirect, len(in.Redirects))
		for i, r := range in.Redirects {
			out.Redirects[i] = space.ImportRedirect{Path: r.Path, Page: r.Page}
		}
	}
	return out
}

func importPages(in []contentapi.Page) []space.ImportPage {
	out := make([]space.ImportPage, len(in))
	for i, p := range in {
		out[i] = space.ImportPage{Kind: p.Kind, Title: p.Title, Slug: p.Slug, Description: p.Description, Emoji: p.Emoji,
			Icon: p.Icon, Markdown: p.Markdown, Hidden: p.Hidden, Href: p.Href, Pages: importPages(p.Pages)}
		if l := p.Layout; l != nil {
			rl := revision.DefaultLayout
			rl.Width, rl.Cover, rl.CoverSize, rl.Title, rl.Description = l.Width, l.Cover, l.CoverSize, l.Title, l.Description
			rl.TableOfContents, rl.Outline, rl.Pagination = l.TableOfContents, l.Outline, l.Pagination
			out[i].Layout = &rl
		}
		if c := p.Cover; c != nil {
			out[i].Cover = &revision.Cover{Src: c.Src, SrcDark: c.SrcDark, YPos: c.YPos, Height: c.Height}
		}
	}
	return out
}

// syncIn is the Git sync state a request reports.
func syncIn(gs contentapi.GitSync) space.GitSync {
	return space.GitSync{RepoName: gs.RepoName, InstallationID: gs.InstallationID, InstallationProvider: gs.InstallationProvider,
		InstallationStatus: gs.InstallationStatus, Integration: gs.Integration, URL: gs.URL, UpdatedAt: gs.UpdatedAt}
}
