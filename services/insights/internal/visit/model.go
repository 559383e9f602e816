// Package visit is the ingest side of insights: the visitor events a site
// posts (every type of the public spec, with its extra fields), their
// validation, their enrichment (user agent, URLs, country) into Visits, and
// the Service that checks the site and publishes a batch to the visits log
// before the caller is answered.
package visit

import (
	"time"
)

// Limits of one ingest request.
const (
	MaxEvents       = 1000 // events of one batch
	MaxURL          = 2048 // location.url, session.referrer
	MaxID           = 128  // session.visitorId, session.sessionId
	MaxUserAgent    = 1024
	MaxText         = 512  // query, goal, feedback comment
	MaxShort        = 256  // ids and names: siteSection, responseId, ad domain…
	MaxClaimsBytes  = 4096 // session.visitorAuthClaims, encoded
	MaxLanguage     = 35   // a BCP 47 tag
	TimestampWindow = 5 * time.Minute
)

// Types lists every event type (SiteInsightsEventType).
var Types = []string{
	"page_view", "page_markdown_request", "search_open", "search_type_query", "search_open_result",
	"page_post_feedback", "page_post_feedback_comment", "agent_feedback", "ask_question", "ask_view",
	"ask_rate_response", "link_click", "api_client_open", "api_client_request", "ad_click", "ad_display",
	"trademark_click", "llms_request", "mcp_request", "rss_request",
}

// Enumerations of the public spec used by events and their enrichment.
var (
	DisplayContexts     = []string{"site", "server", "embed", "mcp"}
	Devices             = []string{"desktop", "tablet", "mobile", "unknown"}
	Browsers            = []string{"chrome", "firefox", "safari", "edge", "ie", "opera", "unknown"}
	OSes                = []string{"windows", "macos", "linux", "android", "ios", "unknown"}
	LinkPositions       = []string{"announcement", "header", "footer", "sidebar", "content"}
	LLMSVariants        = []string{"standard", "full"}
	MarkdownSources     = []string{"page-action"}
	PageNotFoundTypes   = []string{"conditional"}
	AdPlacements        = []string{"aside"}
	TrademarkPlacements = []string{"sidebar", "ad", "footer", "pdf", "embed"}
	FeedbackRatings     = []string{"bad", "ok", "good"}
	LinkTargetKinds     = []string{"url", "page", "file", "anchor", "space", "collection", "user", "reusable-content"}
	Bots                = []string{"unknown", "googlebot", "bingbot", "duckduckbot", "facebookbot", "applebot", "chatgpt", "openai", "claude", "anthropic", "gemini", "perplexity", "cohere", "mistral", "deepseek", "meta", "bytespider", "ccbot", "amazonbot", "youbot", "cursor", "vscode", "claude-code", "codex", "opencode", "gptbot", "claudebot", "meta-fetcher", "grok", "github-copilot", "meta-webindexer", "meta-ads", "duckassist", "amzn-searchbot", "amzn-user"}
)

// Visit is one accepted event as the log carries it: when, who (the
// visitor and session ids the site gave), and every dimension the rollups
// group by. The visitor's IP address and auth token are not in it.
type Visit struct {
	Time    time.Time `json:"t"`
	Visitor string    `json:"v"`
	Session string    `json:"s"`
	Dims    Dims      `json:"d"`
}

// Dims are the dimension values of a visit (the query columns that are not
// counts). "" stands for null; AskRating 0 for none.
type Dims struct {
	EventType      string `json:"type" bson:"type"`
	URL            string `json:"url,omitempty" bson:"url,omitempty"`
	URLPath        string `json:"path,omitempty" bson:"path,omitempty"`
	SiteSection    string `json:"sec,omitempty" bson:"sec,omitempty"`
	SiteSpace      string `json:"ssp,omitempty" bson:"ssp,omitempty"`
	SiteShareKey   string `json:"key,omitempty" bson:"key,omitempty"`
	DisplayContext string `json:"ctx,omitempty" bson:"ctx,omitempty"`
	Space          string `json:"space,omitempty" bson:"space,omitempty"`
	Page           string `json:"page,omitempty" bson:"page,omitempty"`

	GeoCountry string `json:"geo,omitempty" bson:"geo,omitempty"`
	Device     string `json:"dev,omitempty" bson:"dev,omitempty"`
	Browser    string `json:"br,omitempty" bson:"br,omitempty"`
	OS         string `json:"os,omitempty" bson:"os,omitempty"`
	Bot        string `json:"bot,omitempty" bson:"bot,omitempty"`
	Language   string `json:"lang,omitempty" bson:"lang,omitempty"`

	Referrer       string `json:"ref,omitempty" bson:"ref,omitempty"`
	ReferrerDomain string `json:"refd,omitempty" bson:"refd,omitempty"`
	UTMSource      string `json:"utms,omitempty" bson:"utms,omitempty"`
	UTMMedium      string `json:"utmm,omitempty" bson:"utmm,omitempty"`
	UTMCampaign    string `json:"utmc,omitempty" bson:"utmc,omitempty"`
	UTMTerm        string `json:"utmt,omitempty" bson:"utmt,omitempty"`
	UTMContent     string `json:"utmx,omitempty" bson:"utmx,omitempty"`

	Authenticated bool `json:"auth,omitempty" bson:"auth,omitempty"`
	// Claims is the visitor's auth claims as canonical JSON ("" for none).
	Claims string `json:"claims,omitempty" bson:"claims,omitempty"`

	LinkTarget     string `json:"lt,omitempty" bson:"lt,omitempty"` // the ContentRef, JSON
	LinkKind       string `json:"ltk,omitempty" bson:"ltk,omitempty"`
	LinkDomain     string `json:"ltd,omitempty" bson:"ltd,omitempty"`
	LinkPosition   string `json:"lp,omitempty" bson:"lp,omitempty"`
	APIPath        string `json:"apip,omitempty" bson:"apip,omitempty"`
	APIMethod      string `json:"apim,omitempty" bson:"apim,omitempty"`
	LLMSVariant    string `json:"llms,omitempty" bson:"llms,omitempty"`
	PageNotFound   string `json:"pnf,omitempty" bson:"pnf,omitempty"`
	MarkdownSource string `json:"md,omitempty" bson:"md,omitempty"`
	SearchQuery    string `json:"q,omitempty" bson:"q,omitempty"`
	SearchRecord   string `json:"rec,omitempty" bson:"rec,omitempty"`
	Feedback       string `json:"fb,omitempty" bson:"fb,omitempty"`
	FeedbackText   string `json:"fbc,omitempty" bson:"fbc,omitempty"`
	AskRating      int    `json:"ask,omitempty" bson:"ask,omitempty"`
	AdDomain       string `json:"add,omitempty" bson:"add,omitempty"`
	AdPlacement    string `json:"adp,omitempty" bson:"adp,omitempty"`
	Trademark      string `json:"tm,omitempty" bson:"tm,omitempty"`
}
