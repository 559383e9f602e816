package local

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	pngenc "image/png"
	"strings"
)

// pngImage is a small real PNG of one colour, with a band of another.
func pngImage(n int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 320, 180))
	bg := color.RGBA{R: uint8(40 + n*37%180), G: uint8(90 + n*53%140), B: uint8(160 + n*19%90), A: 255}
	for y := 0; y < 180; y++ {
		for x := 0; x < 320; x++ {
			c := bg
			if y > 120 && y < 140 {
				c = color.RGBA{R: 255, G: 255, B: 255, A: 255}
			}
			img.Set(x, y, c)
		}
	}
	var b bytes.Buffer
	_ = pngenc.Encode(&b, img)
	return b.Bytes()
}

// gitbookRepo is a GitBook repository written for the tests: every block
// of GitBook's dialect, blocks nested, figures, cards, an include, an
// {% if %}, relative links in all their forms, assets under
// .gitbook/assets (one with a space in its name), front matter (a page's
// layout and cover), SUMMARY.md entries that link (a page's anchor, a
// URL) and a group heading with GitBook's id (its pages' URLs use it). The
// richest page is getting-started/blocks.md; heavy.md has hints, tabs,
// 50 code blocks and 30 images.
func gitbookRepo() map[string][]byte {
	files := map[string][]byte{
		".gitbook.yaml": []byte("root: ./\n\nstructure:\n  readme: README.md\n  summary: SUMMARY.md\n"),
		"SUMMARY.md": []byte("# Table of contents\n\n* [Welcome](README.md)\n* [Getting started](getting-started/README.md)\n" +
			"  * [Quickstart](getting-started/quickstart.md)\n  * [Blocks tour](getting-started/blocks.md)\n  * [Install step](getting-started/quickstart.md#install)\n* [Heavy page](heavy.md)\n" +
			"* [Zebra website](https://example.com/zebras)\n\n" +
			"## Reference docs <a href=\"#reference\" id=\"reference\"></a>\n\n* [Concepts](reference/concepts.md)\n* [Git sync](reference/git-sync/README.md)\n  * [Setup](reference/git-sync/setup.md)\n"),
		"README.md": []byte("---\ndescription: The zebra handbook, published from Git.\n---\n\n# Welcome\n\n" +
			"Welcome to the zebra handbook. Start with the [blocks tour](getting-started/blocks.md) or read the [concepts](reference/concepts.md).\n\n" +
			"<figure><img src=\".gitbook/assets/logo.png\" alt=\"The zebra logo\"><figcaption><p>The zebra logo</p></figcaption></figure>\n\n" +
			"<a href=\"getting-started/quickstart.md\" class=\"button primary\">Quickstart</a> <a href=\"https://example.com\" class=\"button secondary\">Website</a>\n"),
		"getting-started/README.md": []byte("---\ndescription: First steps with zebras.\nicon: rocket\ncover: ../.gitbook/assets/cover.png\ncoverY: 0\n" +
			"layout:\n  width: wide\n  cover:\n    visible: true\n    size: hero\n  title:\n    visible: false\n  description:\n    visible: true\n" +
			"  tableOfContents:\n    visible: true\n  outline:\n    visible: false\n  pagination:\n    visible: false\n---\n\n# Getting started\n\n" +
			"Pick a page: [Quickstart](quickstart.md), [Blocks tour](./blocks.md).\n"),
		"getting-started/quickstart.md": []byte("# Quickstart\n\nThe quickstart gets a zebra running in minutes.\n\n## Install\n\n```bash\napt-get install zebra\n```\n\n" +
			"## Run\n\nBack to the [tour](blocks.md#tabs) or [home](../README.md).\n"),
		"reference/concepts.md": []byte("---\ndescription: What zebras are made of.\n---\n\n# Concepts\n\nStripes and hooves are the core concepts.\n\n" +
			"## Objects\n\nAn object is a striped thing. See [setup](git-sync/setup.md).\n"),
		"reference/git-sync/README.md":     []byte("# Git sync\n\nGit sync keeps the zebra herd in step with a repository. [Set it up](setup.md).\n"),
		"reference/git-sync/setup.md":      []byte("# Setup\n\nSetting up synchronization takes one command. Back to [Git sync](./) or [concepts](../concepts.md#objects).\n"),
		".gitbook/includes/shared-note.md": []byte("{% hint style=\"info\" %}\nThis note is shared between pages.\n{% endhint %}\n"),
		".gitbook/assets/logo.png":         pngImage(0),
		".gitbook/assets/screen shot.png":  pngImage(1),
		".gitbook/assets/cover.png":        pngImage(2),
		".gitbook/assets/cover-dark.png":   pngImage(40),
		".gitbook/assets/guide.pdf":        []byte("%PDF-1.4\n% zebra guide\n"),
		".gitbook/assets/zebra-api.yaml":   []byte(zebraAPI),
	}
	files["getting-started/blocks.md"] = []byte(blocksPage)
	var heavy strings.Builder
	heavy.WriteString("---\ndescription: Every heavy block at once.\n---\n\n# Heavy page\n\nThe heavy page holds many code blocks and images.\n\n")
	for i := 1; i <= 50; i++ {
		if i%5 == 1 {
			fmt.Fprintf(&heavy, "## Part %d\n\n{%% hint style=\"%s\" %%}\nPart %d starts here.\n{%% endhint %%}\n\n", i/5+1,
				[]string{"info", "success", "warning", "danger"}[i/5%4], i/5+1)
		}
		if i%10 == 0 {
			fmt.Fprintf(&heavy, "{%% tabs %%}\n{%% tab title=\"Go\" %%}\n```go\nfmt.Println(%d)\n```\n{%% endtab %%}\n\n{%% tab title=\"Python\" %%}\n```python\nprint(%d)\n```\n{%% endtab %%}\n{%% endtabs %%}\n\n", i, i)
			continue
		}
		fmt.Fprintf(&heavy, "{%% code title=\"step-%d.go\" lineNumbers=\"true\" %%}\n```go\npackage main\n\nimport \"fmt\"\n\nfunc main() {\n\tfor i := 0; i < %d; i++ {\n\t\tfmt.Println(\"zebra\", i)\n\t}\n}\n```\n{%% endcode %%}\n\n", i, i)
	}
	for i := 1; i <= 30; i++ {
		name := fmt.Sprintf("shot-%02d.png", i)
		files[".gitbook/assets/"+name] = pngImage(i + 3)
		fmt.Fprintf(&heavy, "<figure><img src=\".gitbook/assets/%s\" alt=\"Shot %d\"><figcaption><p>Shot %d</p></figcaption></figure>\n\n", name, i, i)
	}
	files["heavy.md"] = []byte(heavy.String())
	return files
}

// zebraAPI is the OpenAPI document blocks.md's {% openapi %} block shows.
const zebraAPI = `openapi: 3.1.0
info: {title: Zebra API, version: "1"}
servers: [{url: "https://api.zebra.example"}]
components:
  securitySchemes:
    bearer: {type: http, scheme: bearer}
paths:
  /zebras/{zebraId}:
    get:
      summary: Find a zebra
      security: [{bearer: []}]
      parameters:
        - {name: zebraId, in: path, required: true, description: The zebra's id., schema: {type: string}}
        - {name: stripes, in: query, schema: {type: boolean}}
      responses:
        "200":
          description: The zebra.
          content:
            application/json:
              schema:
                type: object
                properties:
                  name: {type: string, example: Marty}
        "404": {description: No such zebra.}
`

// blocksPage is the richest page: every block, nested ones, links in all
// forms.
const blocksPage = "---\ndescription: A tour of every block.\n---\n\n# Blocks tour\n\n" +
	"The blocks tour shows every kind of block a zebra page holds.\n\n" +
	"## Hints <a href=\"#hints\" id=\"hints\"></a>\n\n" +
	"{% hint style=\"info\" %}\n### Did you know\nZebras are **striped**.\n{% endhint %}\n\n" +
	"{% hint style=\"success\" %}\nIt worked.\n{% endhint %}\n\n" +
	"{% hint style=\"warning\" %}\nMind the hooves.\n{% endhint %}\n\n" +
	"{% hint style=\"danger\" %}\nNever feed after midnight.\n{% endhint %}\n\n" +
	"## Tabs\n\n" +
	"{% tabs %}\n{% tab title=\"Go\" icon=\"code\" %}\n```go\nfmt.Println(\"hello zebra\")\n```\n{% endtab %}\n\n" +
	"{% tab title=\"Shell\" %}\nRun the shell variant: see [Git sync](../reference/git-sync/).\n\n```bash\nzebra run\n```\n{% endtab %}\n{% endtabs %}\n\n" +
	"## Stepper\n\n" +
	"{% stepper %}\n{% step %}\n### Install the herd\n{% tabs %}\n{% tab title=\"Linux\" %}\n{% hint style=\"warning\" %}\nNested: a hint in a tab in a step.\n{% endhint %}\n{% endtab %}\n\n" +
	"{% tab title=\"macOS\" %}\nbrew install zebra\n{% endtab %}\n{% endtabs %}\n{% endstep %}\n\n" +
	"{% step %}\n### Configure\nEdit the [concepts](../reference/concepts.md#objects).\n{% endstep %}\n{% endstepper %}\n\n" +
	"## Code\n\n" +
	"{% code title=\"zebra.yaml\" overflow=\"wrap\" lineNumbers=\"true\" %}\n```yaml\nherd:\n  size: 12\n  stripes: true\n```\n{% endcode %}\n\n" +
	"```mermaid\ngraph TD;\n  Foal-->Zebra;\n```\n\n" +
	"$$\nf(x) = x^2\n$$\n\n" +
	"## Expandable\n\n<details>\n\n<summary>More about stripes</summary>\n\nEach stripe pattern is unique.\n\n</details>\n\n" +
	"## Cards\n\n" +
	"<table data-view=\"cards\"><thead><tr><th></th><th></th><th data-hidden data-card-target data-type=\"content-ref\"></th><th data-hidden data-card-cover data-type=\"files\"></th><th data-hidden data-card-cover-dark data-type=\"files\"></th></tr></thead>" +
	"<tbody><tr><td><strong>Concepts</strong></td><td>What zebras are made of.</td><td><a href=\"../reference/concepts.md\">concepts.md</a></td><td><a href=\".gitbook/assets/cover.png\">cover.png</a></td><td><a href=\"../.gitbook/assets/cover-dark.png\">cover-dark.png</a></td></tr>" +
	"<tr><td><strong>Quickstart</strong></td><td>Run a zebra.</td><td><a href=\"quickstart.md\">quickstart.md</a></td><td><a href=\"../.gitbook/assets/cover.png\">cover.png</a></td><td></td></tr></tbody></table>\n\n" +
	"<table><thead><tr><th>Herd</th><th data-hidden>Secret</th></tr></thead><tbody><tr><td>Plains</td><td>hidden column</td></tr></tbody></table>\n\n" +
	"## References and embeds\n\n" +
	"{% content-ref url=\"quickstart.md\" %}\n[quickstart.md](quickstart.md)\n{% endcontent-ref %}\n\n" +
	"{% embed url=\"https://www.youtube.com/watch?v=dQw4w9WgXcQ\" %}\nA zebra video.\n{% endembed %}\n\n" +
	"{% embed url=\"https://github.com/zebra/herd\" %}\n\n" +
	"{% file src=\"../.gitbook/assets/guide.pdf\" %}\nThe printable guide.\n{% endfile %}\n\n" +
	"## Layout\n\n" +
	"{% columns %}\n{% column width=\"50%\" %}\nLeft column text.\n{% endcolumn %}\n\n{% column %}\n<figure><img src=\"../.gitbook/assets/screen%20shot.png\" alt=\"A screen shot\"><figcaption><p>A screen shot</p></figcaption></figure>\n{% endcolumn %}\n{% endcolumns %}\n\n" +
	"{% updates format=\"full\" %}\n{% update date=\"2025-06-01\" tags=\"new-releases\" %}\n### Stripes 2.0\nNew stripes shipped.\n{% endupdate %}\n{% endupdates %}\n\n" +
	"{% prompt description=\"Ask about zebras\" icon=\"sparkles\" %}\n```markdown\nExplain zebra stripes in one paragraph.\n```\n{% endprompt %}\n\n" +
	"{% include \"../.gitbook/includes/shared-note.md\" %}\n\n" +
	"## API\n\n" +
	"{% openapi src=\"../.gitbook/assets/zebra-api.yaml\" path=\"/zebras/{zebraId}\" method=\"get\" %}\n" +
	"[zebra-api.yaml](../.gitbook/assets/zebra-api.yaml)\n{% endopenapi %}\n\n" +
	"{% openapi-operation spec=\"zebra-store\" path=\"/stripes\" method=\"post\" %}\n" +
	"[OpenAPI zebra-store](https://api.zebra.example/openapi.yaml)\n{% endopenapi-operation %}\n\n" +
	"{% if visitor.claims.unsigned.preview %}\nPreview readers see the zebra preview.\n{% endif %}\n\n" +
	"## Inline\n\n" +
	"Press <kbd>Ctrl</kbd> + <kbd>C</kbd>, <mark>highlighted</mark>, H<sub>2</sub>O, x<sup>2</sup>, an icon <i class=\"fa-github\">:github:</i>, one Font Awesome Free lacks <i class=\"fa-gitbook-assistant\">:gitbook-assistant:</i>.\n\n" +
	"<pre class=\"language-yaml\" data-title=\"herd.yaml\"><code class=\"lang-yaml\">herd:\n<strong>  size: 12\n</strong></code></pre>\n\n" +
	"{% code title=\"long.yaml\" expandable=\"true\" %}\n```yaml\na: 1\nb: 2\n```\n{% endcode %}\n\n" +
	"![A screen shot](<../.gitbook/assets/screen shot.png>)\n\n" +
	"Links: [quickstart](quickstart.md), [install section](quickstart.md#install), [concepts](../reference/concepts.md), " +
	"[git sync folder](../reference/git-sync/), [setup](../reference/git-sync/setup.md), [home](../README.md), [a page GitBook lost](/broken/pages/gEJCes43tXugzashxJNV), " +
	"<a href=\"../reference/concepts.md#objects\">objects</a>, [an unpublished page](../drafts/secret.md).\n"
