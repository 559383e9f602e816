package gitbookmd

import (
	"strings"
	"testing"
)

// Snippets of GitBook's own docs, copied from the repository
// GitbookIO/public-docs (commit 3d5c46e), each with the page it is from.
const (
	// documentation/create-content/blocks/cards.md: cards with a target,
	// a cover and a dark cover.
	pdCards = `<table data-view="cards"><thead><tr><th></th><th></th><th data-hidden data-card-target data-type="content-ref"></th><th data-hidden data-card-cover data-type="image">Cover image</th><th data-hidden data-type="image">Cover image (dark)</th><th data-hidden data-type="image">Cover image (dark)</th><th data-hidden data-card-cover-dark data-type="image">Cover image (dark)</th></tr></thead><tbody><tr><td><strong>GitBook homepage</strong></td><td>Visit our website and find out more about GitBook.</td><td><a href="https://www.gitbook.com/">https://www.gitbook.com/</a></td><td><a href="../../.gitbook/assets/25_12_10_cards_3 (1).png">25_12_10_cards_3 (1).png</a></td><td><a href="../../.gitbook/assets/25_12_10_cards_2 (1).png">25_12_10_cards_2 (1).png</a></td><td></td><td><a href="../../.gitbook/assets/25_12_10_cards_2 (1).png">25_12_10_cards_2 (1).png</a></td></tr><tr><td><strong>Developer docs</strong></td><td>Build your own GitBook integration.</td><td><a href="https://developer.gitbook.com/">https://developer.gitbook.com/</a></td><td><a href="../../.gitbook/assets/25_12_10_cards_1 (1).png">25_12_10_cards_1 (1).png</a></td><td></td><td><a href="../../.gitbook/assets/25_12_10_cards (1).png">25_12_10_cards (1).png</a></td><td><a href="../../.gitbook/assets/25_12_10_cards (1).png">25_12_10_cards (1).png</a></td></tr><tr><td><strong>Sign up to GitBook</strong></td><td>Click here to get started for free.</td><td><a href="https://app.gitbook.com/join">https://app.gitbook.com/join</a></td><td><a href="../../.gitbook/assets/25_12_10_cards_5 (1).png">25_12_10_cards_5 (1).png</a></td><td></td><td></td><td><a href="../../.gitbook/assets/25_12_10_cards_4 (1).png">25_12_10_cards_4 (1).png</a></td></tr></tbody></table>`
	// documentation/README.md: cards whose first cell is icons.
	pdIconCards = `<table data-view="cards"><thead><tr><th></th><th></th><th></th><th></th><th></th><th></th></tr></thead><tbody><tr><td><h4><i class="fa-hand-pointer">:hand-pointer:</i></h4></td><td><h4>In the editor</h4></td><td>Write and publish visually. Blocks, change requests, and review without touching a terminal.</td><td><a data-mention href="getting-started/quickstart.md">quickstart.md</a></td><td><a data-mention href="create-content/formatting/">formatting</a></td><td><a data-mention href="publish/publish-a-docs-site/">publish-a-docs-site</a></td></tr><tr><td><h4><i class="fa-claude">:claude:</i> <i class="fa-chatgpt">:chatgpt:</i> <i class="fa-cursor">:cursor:</i></h4></td><td><h4>From your agent</h4></td><td>Drive GitBook from Claude, Cursor, or any MCP client. Draft, restructure, and open change requests.</td><td><a data-mention href="docs-as-code/git-sync/">git-sync</a></td><td><a data-mention href="docs-as-code/gitbook-mcp.md">gitbook-mcp.md</a></td><td><a data-mention href="docs-as-code/ai-coding-assistants-and-skillmd.md">ai-coding-assistants-and-skillmd.md</a></td></tr><tr><td><h4><i class="fa-code">:code:</i></h4></td><td><h4>With code</h4></td><td>Sync from Git, script with the CLI, or build on the API and ship your own components.</td><td><a data-mention href="docs-as-code/gitbook-cli.md">gitbook-cli.md</a></td><td><a data-mention href="https://app.gitbook.com/s/2SyQSbIa1iYS7z6Dx5di/gitbook-api/api-reference">API reference</a></td><td><a data-mention href="https://app.gitbook.com/s/2SyQSbIa1iYS7z6Dx5di/integrations">Build a custom component</a></td></tr></tbody></table>`
	// documentation/README.md: buttons, one with an icon.
	pdButtons = `<a href="getting-started/quickstart.md" class="button primary">Quickstart</a><a href="docs-as-code/gitbook-mcp.md" class="button secondary" data-icon="sparkles">GitBook MCP</a>`
	// documentation/getting-started/quickstart.md: an icon in text.
	pdArrow = `<i class="fa-arrow-down">:arrow-down:</i> [Jump to the 'Publish your documentation' step on this page](quickstart.md#publish-your-documentation)`
	// documentation/create-content/blocks/table.md: a table with hidden
	// columns.
	pdHiddenColumns = `<table data-full-width="false"><thead><tr><th>Company</th><th>Status<select><option value="36bef47f343d4588bc43db3e5c701796" label="In progress" color="blue"></option></select></th><th>Contact</th><th>MRR</th><th data-hidden>Contact</th><th data-hidden>MRR</th><th data-hidden>Status<select><option value="3e7a52c673ec4a01992566d18271f7a5" label="In progress" color="blue"></option><option value="2362fd3eafc7476fb8646ac754f34b72" label="Done" color="blue"></option></select></th></tr></thead><tbody><tr><td><strong>Ace AI</strong> – Design</td><td><span data-option="36bef47f343d4588bc43db3e5c701796">In progress</span></td><td><a href="mailto:noreply@gitbook.com">rena@ace.ai</a></td><td>$450</td><td><a href="mailto:noreply@gitbook.com">rena@ace.ai</a></td><td>$420</td><td><span data-option="3e7a52c673ec4a01992566d18271f7a5">In progress</span></td></tr><tr><td><strong>Discrete Data</strong> – API</td><td><span data-option="36bef47f343d4588bc43db3e5c701796">In progress</span></td><td><a href="mailto:noreply@gitbook.com">dave@dd.inc</a></td><td>$100</td><td><a href="mailto:noreply@gitbook.com">dave@dd.inc</a></td><td>$69</td><td></td></tr><tr><td><strong>Example Co</strong></td><td></td><td><a href="mailto:pete@example.com">pete@example.com</a></td><td>$50</td><td></td><td></td><td></td></tr></tbody></table>`
	// documentation/create-content/openapi/guides/structuring-your-api-reference.md:
	// a titled code block with marked lines.
	pdTitledPre = `<pre class="language-yaml" data-title="openapi.yaml"><code class="lang-yaml">paths:
  /pet:
    put:
<strong>      tags:
</strong><strong>        - pet
</strong>      summary: Update an existing pet.
      description: Update an existing pet by Id.
      operationId: updatePet
</code></pre>
`
	// documentation/docs-as-code/git-sync/content-configuration.md: an
	// expandable code block.
	pdExpandable = `{% code title="docs.yaml" expandable="true" %}
` + "`" + `` + "`" + `` + "`" + `yaml
$schema: https://api.gitbook.com/openapi.yaml#/components/schemas/GitSyncSiteConfig
site:
  title: Documentation
  structure:
    - type: section
      key: documentation
      title: Documentation
      path: documentation
      children:
        - type: space
          key: docs-en
          title: English
          path: docs
          default: true
          content:
            directory: ./docs/en
            language: en
        - type: space
          key: docs-fr
          title: Français
          path: fr
          content:
            directory: ./docs/fr
            language: fr
` + "`" + `` + "`" + `` + "`" + `
{% endcode %}
`
	// documentation/create-content/blocks/updates.md: an update with a tag.
	pdUpdates = `{% updates format="full" %}
{% update date="2025-12-25" tags="beta" %}
## A brand new update

Use this block to tell users about a new update. Add any additional blocks you need inside it — images, code, lists, and more.
{% endupdate %}
{% endupdates %}
`
	// documentation/getting-started/quickstart.md: tabs with icons (their
	// text shortened).
	pdTabs = "{% tabs %}\n{% tab title=\"Visual editor\" icon=\"hand-pointer\" %}\nGitBook's what-you-see-is-what-you-get (WYSIWYG) editor lets you edit content visually.\n{% endtab %}\n\n" +
		"{% tab title=\"AI Agent\" icon=\"robot\" %}\nSync your documentation with a GitHub or GitLab repository.\n{% endtab %}\n{% endtabs %}\n"
	// documentation/create-content/blocks/hint.md: a hint with an icon
	// Font Awesome Free does not have.
	pdHintIcon = "{% hint style=\"info\" icon=\"books\" %}\nThis hint block has a custom icon.\n{% endhint %}\n"
	// changelog/README.md: an update with several tags.
	pdChangelogUpdate = "{% updates format=\"full\" %}\n{% update date=\"2026-08-06\" tags=\"new-releases,improvements,fixes\" %}\n" +
		"## One-click MCP connectors and a redesigned Developer tools screen&#x20;\n\nConnect your site’s MCP server to an AI client in one click.\n{% endupdate %}\n{% endupdates %}\n"
)

// pdLinks resolves the snippets' assets and pages.
var pdLinks = resolverMap{
	"../../.gitbook/assets/25_12_10_cards_3 (1).png": "/s/~files/ss/rev/c3",
	"../../.gitbook/assets/25_12_10_cards_2 (1).png": "/s/~files/ss/rev/c2",
	"../../.gitbook/assets/25_12_10_cards_1 (1).png": "/s/~files/ss/rev/c1",
	"../../.gitbook/assets/25_12_10_cards (1).png":   "/s/~files/ss/rev/c0",
	"getting-started/quickstart.md":                  "/s/getting-started/quickstart",
	"docs-as-code/gitbook-mcp.md":                    "/s/docs-as-code/gitbook-mcp",
}

// TestPublicDocs: GitBook's own pages render as GitBook shows them.
func TestPublicDocs(t *testing.T) {
	r := New()
	for _, tc := range []struct {
		name, src     string
		want, notWant []string
	}{
		{
			name: "cards link to their target, covers light and dark", src: pdCards,
			want: []string{
				`<td class="card-target"><a href="https://www.gitbook.com/" class="card-link" aria-label="GitBook homepage" rel="nofollow">`,
				`<td class="card-cover"><picture><source srcset="/s/~files/ss/rev/c2" media="(prefers-color-scheme: dark)"><img src="/s/~files/ss/rev/c3" alt=""></picture></td>`,
				`<td class="card-cover"><picture><source srcset="/s/~files/ss/rev/c0" media="(prefers-color-scheme: dark)"><img src="/s/~files/ss/rev/c1" alt=""></picture></td>`,
				`aria-label="Sign up to GitBook"`, `<td class="card-cover-dark"></td>`, `<td class="card-hidden">`},
			notWant: []string{"25_12_10_cards_3", "25_12_10_cards_1", `<td class="card-cover-dark"><a`, `<td class="card-cover-dark"><img`},
		},
		{
			name: "icons in cards, unknown ones drawn as nothing", src: pdIconCards,
			want:    []string{`<td><h4><svg class="icon icon-hand-pointer" `, `<h4><svg class="icon icon-claude" `, `<h4><svg class="icon icon-code" `},
			notWant: []string{":hand-pointer:", ":claude:", ":chatgpt:", ":cursor:", ":code:", "<i", "icon-chatgpt", "card-link"},
		},
		{
			name: "buttons, with an icon", src: pdButtons,
			want: []string{`<a href="/s/getting-started/quickstart" class="button primary">Quickstart</a>`,
				`<a href="/s/docs-as-code/gitbook-mcp" class="button secondary" data-icon="sparkles">GitBook MCP</a>`},
			notWant: []string{"<span", "<svg"},
		},
		{
			name: "an icon in text", src: pdArrow,
			want:    []string{`<p><svg class="icon icon-arrow-down" `, `</svg> Jump to the`},
			notWant: []string{":arrow-down:"},
		},
		{
			name: "hidden table columns", src: pdHiddenColumns,
			want: []string{`<th>MRR</th><th data-hidden="" class="col-hidden">Contact</th>`, `<td>$450</td><td class="col-hidden">`,
				`<td class="col-hidden">$420</td>`},
		},
		{
			name: "a titled HTML code block, highlighted, its marked lines marked", src: pdTitledPre,
			want: []string{`<figure class="code-block"><figcaption class="code-title">openapi.yaml</figcaption>`,
				`<span class="line hl"><span class="cl"><span class="w">      </span><span class="nt">tags</span>`,
				`<span class="line"><span class="cl"><span class="nt">paths</span>`},
			notWant: []string{"<strong>", "data-title"},
		},
		{
			name: "an expandable code block folds", src: pdExpandable,
			want: []string{`<details class="code-expandable"><summary>Show code: docs.yaml (24 lines)</summary><figure class="code-block"><figcaption class="code-title">docs.yaml</figcaption>`,
				`<span class="nt">$schema</span>`, "</figure>\n</details>"},
			notWant: []string{"{%"},
		},
		{
			name: "an update's date and tag", src: pdUpdates,
			want: []string{`<section class="update"><div class="update-meta"><time class="update-date" datetime="2025-12-25">December 25, 2025</time> <span class="update-tag" data-tag="beta">Beta</span></div>`,
				`<h2 id="a-brand-new-update">`},
		},
		{
			name: "an update's tags", src: pdChangelogUpdate,
			want: []string{`August 6, 2026</time> <span class="update-tag" data-tag="new-releases">New releases</span> <span class="update-tag" data-tag="improvements">Improvements</span> <span class="update-tag" data-tag="fixes">Fixes</span>`},
		},
		{
			name: "tabs with icons", src: pdTabs,
			want: []string{`role="tab"><svg class="icon icon-hand-pointer" `, `</svg>Visual editor</label>`, `role="tab"><svg class="icon icon-robot" `},
		},
		{
			name: "a hint's icon Font Awesome Free lacks keeps the style's", src: pdHintIcon,
			want: []string{`<span class="hint-icon" aria-hidden="true"></span>`},
		},
		{
			name: "a hint's icon", src: "{% hint style=\"success\" icon=\"rocket\" %}\nShipped.\n{% endhint %}\n",
			want: []string{`<span class="hint-icon has-icon" aria-hidden="true"><svg class="icon icon-rocket" `},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := r.Render(tc.src, Options{Links: pdLinks}).HTML
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("lacks %q in:\n%s", w, got)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(got, w) {
					t.Errorf("holds %q in:\n%s", w, got)
				}
			}
		})
	}
}
