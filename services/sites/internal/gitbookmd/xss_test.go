package gitbookmd

import (
	"strings"
	"testing"

	"github.com/docspub/platform/services/sites/internal/icons"
	"golang.org/x/net/html"
)

// xssPayloads are classic filter-evasion payloads (after the OWASP XSS
// filter evasion cheat sheet), as raw HTML in a page.
var xssPayloads = []string{
	`<script>alert(1)</script>`,
	`<IMG SRC="javascript:alert('XSS');">`,
	`<IMG SRC=javascript:alert('XSS')>`,
	`<IMG SRC=JaVaScRiPt:alert('XSS')>`,
	"<IMG SRC=`javascript:alert(\"RSnake says, 'XSS'\")`>",
	`<a onmouseover="alert(document.cookie)">xxs link</a>`,
	`<IMG """><SCRIPT>alert("XSS")</SCRIPT>"\>`,
	`<IMG SRC=javascript:alert(String.fromCharCode(88,83,83))>`,
	`<IMG SRC=# onmouseover="alert('xxs')">`,
	`<IMG SRC=/ onerror="alert(String.fromCharCode(88,83,83))"></img>`,
	`<img src=x onerror="&#0000106&#0000097&#0000118&#0000097&#0000115&#0000099&#0000114&#0000105&#0000112&#0000116&#0000058&#0000097&#0000108&#0000101&#0000114&#0000116&#0000040&#0000039&#0000088&#0000083&#0000083&#0000039&#0000041">`,
	`<IMG SRC=&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;&#97;&#108;&#101;&#114;&#116;&#40;&#39;&#88;&#83;&#83;&#39;&#41;>`,
	`<IMG SRC=&#x6A&#x61&#x76&#x61&#x73&#x63&#x72&#x69&#x70&#x74&#x3A&#x61&#x6C&#x65&#x72&#x74&#x28&#x27&#x58&#x53&#x53&#x27&#x29>`,
	"<IMG SRC=\"jav\tascript:alert('XSS');\">",
	`<IMG SRC="jav&#x09;ascript:alert('XSS');">`,
	`<IMG SRC="jav&#x0A;ascript:alert('XSS');">`,
	`<IMG SRC=" &#14;  javascript:alert('XSS');">`,
	`<SCRIPT/XSS SRC="http://xss.rocks/xss.js"></SCRIPT>`,
	"<BODY onload!#$%&()*~+-_.,:;?@[/|\\]^`=alert(\"XSS\")>",
	`<<SCRIPT>alert("XSS");//\<</SCRIPT>`,
	`<SCRIPT SRC=http://xss.rocks/xss.js?< B >`,
	`<iframe src=http://xss.rocks/scriptlet.html <`,
	`<svg/onload=alert('XSS')>`,
	`<svg><script>alert(1)</script></svg>`,
	`<BODY BACKGROUND="javascript:alert('XSS')">`,
	`<IMG DYNSRC="javascript:alert('XSS')">`,
	`<IMG LOWSRC="javascript:alert('XSS')">`,
	`<STYLE>li {list-style-image: url("javascript:alert('XSS')");}</STYLE><UL><LI>XSS</br>`,
	`<LINK REL="stylesheet" HREF="javascript:alert('XSS');">`,
	`<META HTTP-EQUIV="refresh" CONTENT="0;url=javascript:alert('XSS');">`,
	`<IFRAME SRC="javascript:alert('XSS');"></IFRAME>`,
	`<FRAMESET><FRAME SRC="javascript:alert('XSS');"></FRAMESET>`,
	`<TABLE BACKGROUND="javascript:alert('XSS')">`,
	`<TABLE><TD BACKGROUND="javascript:alert('XSS')">`,
	`<DIV STYLE="background-image: url(javascript:alert('XSS'))">`,
	`<DIV STYLE="width: expression(alert('XSS'));">`,
	`<mark style="color:red;background:url(javascript:alert(1))">x</mark>`,
	`<BASE HREF="javascript:alert('XSS');//">`,
	`<OBJECT TYPE="text/x-scriptlet" DATA="http://xss.rocks/scriptlet.html"></OBJECT>`,
	`<EMBED SRC="data:image/svg+xml;base64,PHN2ZyB4bWxuczpzdmc9Imh0dH A6Ly93d3cudzMub3JnLzIwMDAvc3ZnIj48L3N2Zz4=" type="image/svg+xml" AllowScriptAccess="always"></EMBED>`,
	`<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">x</a>`,
	`<img src="data:image/svg+xml;base64,PHN2Zz48c2NyaXB0PmFsZXJ0KDEpPC9zY3JpcHQ+PC9zdmc+">`,
	`<a href="&#x6A;avascript:alert(1)">x</a>`,
	`<a href="  javascript:alert(1)">x</a>`,
	`<a href="java&#0;script:alert(1)">x</a>`,
	`<details open ontoggle=alert(1)><summary>x</summary></details>`,
	`<form><button formaction=javascript:alert(1)>x</button></form>`,
	`<math><mi xlink:href="javascript:alert(1)">x</mi></math>`,
	`<picture><source srcset="javascript:alert(1)"><source srcset="data:image/svg+xml,<svg onload=alert(1)>"><img src="x.png"></picture>`,
	`<img srcset="javascript:alert(1) 1x, data:image/png;base64,AAAA 2x">`,
	`<input type="radio" onfocus=alert(1) autofocus>`,
	`<label for="x" onclick="alert(1)">x</label>`,
	`<iframe srcdoc="<script>alert(1)</script>"></iframe>`,
	`<iframe src="https://evil.example/embed/abc"></iframe>`,
	`<iframe src="https://www.youtube-nocookie.com/embed/abc" sandbox="allow-top-navigation allow-popups allow-scripts"></iframe>`,
	`<video><source onerror="alert(1)"></video>`,
	`<audio src=x onerror=alert(1)>`,
	`<x onclick=alert(1)>click</x>`,
	`<table data-view="cards" onmouseover="alert(1)"><tr><td data-x="1" onclick="alert(2)">x</td></tr></table>`,
	`<a href="https://example.com" target="_blank" onclick="alert(1)" class="button primary">x</a>`,
	`<i class="fa-github" onmouseover="alert(1)">:github:</i>`,
	`<i class="fa-&quot;><script>alert(1)</script>">:x:</i><i class="fa-github"><img src=x onerror=alert(1)></i>`,
	`<span class="icon" data-icon="github" onclick="alert(1)"></span><span class="icon" data-icon="github"><svg onload=alert(1)></svg></span>`,
	`<a class="button" data-icon="&quot; onclick=&quot;alert(1)" href="https://example.com">x</a>`,
	`<table data-view="cards"><thead><tr><th data-card-target></th><th data-card-cover></th><th data-card-cover-dark></th></tr></thead><tbody><tr><td><a href="javascript:alert(1)">t</a></td><td><a href="javascript:alert(2)">c</a></td><td><a href="javascript:alert(3)">d</a></td></tr></tbody></table>`,
	`<table data-view="cards"><thead><tr><th data-card-cover></th><th data-card-cover-dark></th></tr></thead><tbody><tr><td><a href="x.png">c</a></td><td><a href="data:image/svg+xml,<svg onload=alert(1)>">d</a></td></tr></tbody></table>`,
	`<img src="x" id="__proto__" name="cookie">`,
	`<noscript><p title="</noscript><img src=x onerror=alert(1)>"></noscript>`,
	`<!--<img src="--><img src=x onerror=alert(1)//">`,
	`<style><img src="</style><img src=x onerror=alert(1)//">`,
	`<a href="vbscript:msgbox(1)">x</a>`,
	`<a href="livescript:alert(1)">x</a>`,
}

// xssMarkdown are the same attacks written in markdown and in GitBook's
// blocks.
var xssMarkdown = []string{
	"[x](javascript:alert(1))",
	"[x](JAVASCRIPT:alert(1))",
	"[x](&#106;avascript:alert(1))",
	"[x](java\\script:alert(1))",
	"![x](javascript:alert(1))",
	"[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
	"![x](data:image/svg+xml;base64,PHN2Zz48c2NyaXB0PmFsZXJ0KDEpPC9zY3JpcHQ+PC9zdmc+)",
	"<javascript:alert(1)>",
	"[x](vbscript:msgbox(1))",
	"[x]: javascript:alert(1)\n\n[y][x]",
	"{% embed url=\"javascript:alert(1)\" %}",
	"{% embed url=\"https://www.youtube.com/watch?v=a\\\"onload=alert(1)\" %}",
	"{% file src=\"javascript:alert(1)\" %}\ncaption\n{% endfile %}",
	"{% hint style=\"\\\" onmouseover=alert(1)\" %}\nx\n{% endhint %}",
	"{% tabs %}\n{% tab title=\"<img src=x onerror=alert(1)>\" %}\nx\n{% endtab %}\n{% endtabs %}",
	"{% code title=\"<script>alert(1)</script>\" %}\n```\nx\n```\n{% endcode %}",
	"{% content-ref url=\"javascript:alert(1)\" %}\n[x](javascript:alert(1))\n{% endcontent-ref %}",
	"{% column width=\"50%\\\" onclick=alert(1)\" %}\nx\n{% endcolumn %}",
	"{% update date=\"<script>alert(1)</script>\" %}\nx\n{% endupdate %}",
	"{% prompt description=\"<img src=x onerror=alert(1)>\" %}\nx\n{% endprompt %}",
	"{% tabs %}\n{% tab title=\"x\" icon=\"\\\" onload=alert(1)\" %}\nx\n{% endtab %}\n{% endtabs %}",
	"{% hint style=\"info\" icon=\"<svg onload=alert(1)>\" %}\nx\n{% endhint %}",
	"{% updates %}\n{% update date=\"2025-01-01\" tags=\"<img src=x onerror=alert(1)>,a\" %}\nx\n{% endupdate %}\n{% endupdates %}",
	"{% code expandable=\"true\" title=\"<img src=x onerror=alert(1)>\" %}\n```\nx\n```\n{% endcode %}",
	"<pre data-title=\"&lt;script&gt;alert(1)&lt;/script&gt;\" class=\"language-js\"><code>x</code></pre>",
	"$$</code><script>alert(1)</script>$$",
	"$$\n</code><img src=x onerror=alert(1)>\n$$",
	"```mermaid\n</code></pre><script>alert(1)</script>\n```",
	"```\"><script>alert(1)</script>\nx\n```",
	"## <img src=x onerror=alert(1)> heading",
	"{% include \"<script>alert(1)</script>\" %}",
	"> <script>alert(1)</script>",
	"- <svg onload=alert(1)>",
	"| a |\n|---|\n| <img src=x onerror=alert(1)> |",
}

func TestXSS(t *testing.T) {
	r := New()
	links := resolverMap{}
	for _, group := range []struct {
		name  string
		cases []string
	}{{"html", xssPayloads}, {"markdown", xssMarkdown}} {
		for i, src := range group.cases {
			for _, wrap := range []string{"%s", "{%% hint style=\"info\" %%}\n%s\n{%% endhint %%}"} {
				page := strings.Replace(wrap, "%s", src, 1)
				page = strings.ReplaceAll(page, "%%", "%")
				out := r.Render(page, Options{Links: links, Cond: func(string) bool { return true }}).HTML
				if bad := executable(out); bad != "" {
					t.Errorf("%s payload %d %q renders %s:\n%s", group.name, i, src, bad, out)
				}
			}
		}
	}
}

// executable finds, in HTML as a browser parses it, what could run a
// script: a script-like element (an <svg> that is not one of the icons
// drawn included), an event handler, a style, a frame
// other than the allowed players, a javascript:, vbscript: or data: URL.
func executable(body string) string {
	for _, name := range icons.Names() { // the icons drawn, as drawn, are vetted markup
		svg, _ := icons.SVG(name)
		body = strings.ReplaceAll(body, svg, "")
	}
	doc, err := html.Parse(strings.NewReader(body))
	if err != nil {
		return "unparsable HTML"
	}
	var bad string
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if bad != "" {
			return
		}
		if n.Type == html.ElementNode {
			switch n.Data {
			case "script", "style", "object", "embed", "link", "meta", "base", "form", "frame", "frameset",
				"svg", "math", "video", "audio", "noscript", "template", "button", "textarea", "select":
				bad = "a <" + n.Data + "> element"
				return
			}
			for _, a := range n.Attr {
				key := strings.ToLower(a.Key)
				val := strings.Map(func(r rune) rune {
					if r <= ' ' {
						return -1
					}
					return r
				}, strings.ToLower(a.Val))
				switch {
				case strings.HasPrefix(key, "on"):
					bad = "an event handler " + key
				case key == "style" || key == "srcdoc" || key == "formaction" || key == "xlink:href" ||
					key == "background" || key == "dynsrc" || key == "lowsrc" || key == "autofocus":
					bad = "attribute " + key
				case strings.Contains(val, "javascript:") || strings.Contains(val, "vbscript:") ||
					strings.Contains(val, "livescript:") || (isURLAttr(key) && strings.HasPrefix(val, "data:")) ||
					(key == "srcset" && strings.Contains(val, "data:")):
					bad = "a script URL in " + key + "=" + a.Val
				}
			}
			if n.Data == "iframe" {
				src, sandbox := "", false
				for _, a := range n.Attr {
					if a.Key == "src" {
						src = a.Val
					}
					if a.Key == "sandbox" {
						sandbox = true
						if strings.Contains(a.Val, "top-navigation") || strings.Contains(a.Val, "popups") {
							bad = "an iframe sandbox of " + a.Val
						}
					}
				}
				if (src != "" && !frameSrc.MatchString(src)) || !sandbox {
					bad = "an iframe of " + src
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return bad
}

func isURLAttr(k string) bool {
	switch k {
	case "href", "src", "action", "data", "poster", "cite", "srcset":
		return true
	}
	return false
}

// TestExecutableFinds: the check above sees what it looks for.
func TestExecutableFinds(t *testing.T) {
	for _, bad := range []string{`<img src=x onerror=alert(1)>`, `<a href=" java script:alert(1)">x</a>`, `<script>1</script>`,
		`<iframe src="https://evil.example/"></iframe>`, `<img src="data:image/png;base64,AA">`, `<p style="x">`} {
		if executable(bad) == "" {
			t.Errorf("executable(%q) found nothing", bad)
		}
	}
	if got := executable(`<p><a href="/x">ok</a><img src="https://example.com/a.png"></p>`); got != "" {
		t.Errorf("a safe page: %s", got)
	}
}
