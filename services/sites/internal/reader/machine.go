package reader

import (
	"context"
	"encoding/xml"
	"errors"
	"net/http"
	"strings"

	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/services/sites/internal/limits"
)

// view is the insights record of reading p.
func (rd *read) view(typ string, sec *vsection, v *variant, t *tree, p *page) *View {
	out := &View{Type: typ, Organization: rd.site.Organization, Site: rd.site.ID,
		URL: rd.origin + rd.req.Path, Claims: rd.visitor.signed}
	if sec != nil {
		out.SiteSection = sec.id
	}
	if v != nil {
		out.SiteSpace, out.Space = v.ss.ID, v.ss.Space
	}
	if t != nil {
		out.Revision = t.id
	}
	if p != nil {
		out.Page = p.id
	}
	return out
}

func (r *Reader) text(rd *read, typ, body string) *Response {
	resp := rd.resp
	resp.Status, resp.Type, resp.Body = http.StatusOK, typ, []byte(body)
	return resp
}

// pageMarkdown answers a page's markdown (<page>.md): its title as a
// heading, its description, then its markdown as written, {% if %} blocks
// settled for the reader (evaluated).
func (r *Reader) pageMarkdown(rd *read, sec *vsection, v *variant, t *tree, p *page) *Response {
	var b strings.Builder
	b.WriteString("# " + p.title + "\n\n")
	if p.description != "" {
		b.WriteString(p.description + "\n\n")
	}
	b.WriteString(r.evaluated(rd, p))
	rd.resp.View = rd.view("page_markdown_request", sec, v, t, p)
	return r.text(rd, "text/markdown; charset=utf-8", b.String())
}

// robots answers robots.txt: a public site may be crawled (its sitemap
// named), any other is not.
func (r *Reader) robots(rd *read) *Response {
	if !rd.resp.Public {
		return r.text(rd, "text/plain; charset=utf-8", "User-agent: *\nDisallow: /\n")
	}
	return r.text(rd, "text/plain; charset=utf-8", "User-agent: *\nAllow: /\n\nSitemap: "+rd.origin+rd.url("/sitemap.xml")+"\n")
}

// spaceTree is the tree of a variant listed to the reader, with its
// section.
type spaceTree struct {
	sec *vsection
	v   *variant
	t   *tree
}

// spaceTrees are the trees of the variants listed to the reader
// (structure.listed: hidden ones and those the reader may not see left
// out), at most limits.ReaderLLMSSpaces of them; more tells some were
// left out. A space content no longer has is left out too.
func (r *Reader) spaceTrees(ctx context.Context, rd *read) (out []spaceTree, more bool, err error) {
	for _, lv := range rd.st.listed() {
		if len(out) >= limits.ReaderLLMSSpaces {
			return out, true, nil
		}
		t, err := r.revision(ctx, rd.snap, rd.site.Organization, lv.v.ss.Space)
		if errors.Is(err, contentapi.ErrNoSpace) {
			continue
		}
		if err != nil {
			return nil, false, err
		}
		out = append(out, spaceTree{sec: lv.sec, v: lv.v, t: t})
	}
	return out, false, nil
}

// sitemap answers sitemap.xml of a public site: every page readers may
// page through (hidden pages left out), at most limits.ReaderSitemapURLs.
func (r *Reader) sitemap(ctx context.Context, rd *read) *Response {
	if !rd.resp.Public {
		return r.notFound(rd, "This site is not listed for search engines.")
	}
	trees, _, err := r.spaceTrees(ctx, rd)
	if err != nil {
		return r.failed(rd, err)
	}
	type loc struct {
		Loc string `xml:"loc"`
	}
	var urls []loc
	for _, st := range trees {
		for _, p := range st.t.docs {
			if len(urls) >= limits.ReaderSitemapURLs {
				break
			}
			urls = append(urls, loc{Loc: rd.origin + rd.pageURL(st.v, st.t, p)})
		}
	}
	out, err := xml.Marshal(struct {
		XMLName xml.Name `xml:"urlset"`
		NS      string   `xml:"xmlns,attr"`
		URLs    []loc    `xml:"url"`
	}{NS: "http://www.sitemaps.org/schemas/sitemap/0.9", URLs: urls})
	if err != nil {
		return r.failed(rd, err)
	}
	return r.text(rd, "application/xml; charset=utf-8", xml.Header+string(out)+"\n")
}

// llms answers llms.txt (the site's title and, per site space, its pages
// linked as markdown) or llms-full.txt (every page's markdown as the
// reader may read it (evaluated), at most limits.ReaderLLMSFullBytes).
func (r *Reader) llms(ctx context.Context, rd *read, full bool) *Response {
	trees, more, err := r.spaceTrees(ctx, rd)
	if err != nil {
		return r.failed(rd, err)
	}
	var b strings.Builder
	b.WriteString("# " + rd.site.Title + "\n")
	cut := false
	for _, st := range trees {
		name := st.v.title
		if st.sec.id != "" && st.sec.title != name {
			name = st.sec.title + ": " + name
		}
		b.WriteString("\n## " + name + "\n\n")
		for _, p := range st.t.docs {
			if !full {
				b.WriteString("- [" + p.title + "](" + rd.origin + rd.base + st.v.path + "/" + p.path + ".md)")
				if p.description != "" {
					b.WriteString(": " + p.description)
				}
				b.WriteString("\n")
				continue
			}
			md := r.evaluated(rd, p)
			if b.Len()+len(md) > limits.ReaderLLMSFullBytes {
				cut = true
				break
			}
			b.WriteString("# " + p.title + "\n\nSource: " + rd.origin + rd.pageURL(st.v, st.t, p) + "\n\n")
			b.WriteString(strings.TrimSpace(md) + "\n\n")
		}
		if cut {
			break
		}
	}
	if more || cut {
		b.WriteString("\n(Some content of this site is left out here.)\n")
	}
	variant := "standard"
	if full {
		variant = "full"
	}
	rd.resp.View = rd.view("llms_request", nil, nil, nil, nil)
	rd.resp.View.LLMS = variant
	return r.text(rd, "text/plain; charset=utf-8", b.String())
}
