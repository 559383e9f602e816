package site

import (
	"encoding/json"
	"fmt"
)

// visitorSpaceFields are the fields of a Space a visitor of the published
// view is shown: those the Space schema requires and what the reader
// shows anyway (title, emoji, public URLs). Anything else (gitSync and its
// repository URL, visitorAuth, imports, the parent collection, new fields
// content adds) is left out: the list says what is shown, not what is not.
var visitorSpaceFields = []string{"object", "id", "title", "emoji", "organization", "visibility", "revision",
	"createdAt", "updatedAt", "editMode", "type", "language", "mergeRules", "defaultLevel", "permissions"}

// visitorSpaceURLs are the URLs of a Space a visitor is shown.
var visitorSpaceURLs = []string{"location", "app", "published", "public", "icon"}

// visitorCounts are the Space schema's required counts: members' activity
// (comments, change requests), zero for a visitor.
var visitorCounts = []string{"comments", "changeRequests", "changeRequestsOpen", "changeRequestsDraft"}

// visitorSpace is a Space (as a site space embeds it) as a visitor is
// shown it.
func visitorSpace(raw json.RawMessage) (json.RawMessage, error) {
	var in map[string]json.RawMessage
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, fmt.Errorf("read space view: %w", err)
	}
	out := make(map[string]json.RawMessage, len(visitorSpaceFields)+len(visitorCounts)+1)
	for _, f := range visitorSpaceFields {
		if v, ok := in[f]; ok {
			out[f] = v
		}
	}
	for _, f := range visitorCounts {
		out[f] = json.RawMessage("0")
	}
	var urls map[string]json.RawMessage
	if v, ok := in["urls"]; ok {
		if err := json.Unmarshal(v, &urls); err != nil {
			return nil, fmt.Errorf("read space urls: %w", err)
		}
	}
	shown := map[string]json.RawMessage{}
	for _, f := range visitorSpaceURLs {
		if v, ok := urls[f]; ok {
			shown[f] = v
		}
	}
	b, err := json.Marshal(shown)
	if err != nil {
		return nil, fmt.Errorf("encode space urls: %w", err)
	}
	out["urls"] = b
	return json.Marshal(out)
}

// visitorView is a site space as a visitor of the published view is
// shown it: without its condition, its space without member-only fields.
func visitorView(v SiteSpaceView) (SiteSpaceView, error) {
	sp, err := visitorSpace(v.Space)
	if err != nil {
		return SiteSpaceView{}, err
	}
	v.Space, v.Condition, v.Hidden = sp, "", false
	return v, nil
}
