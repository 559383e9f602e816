package gitsync

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/libs/internalapi/identityapi"
	"github.com/docspub/platform/libs/jobs"
	"github.com/docspub/platform/libs/urlguard"
	"github.com/docspub/platform/services/integrations/internal/access"
	"github.com/docspub/platform/services/integrations/internal/gitbook"
)

func TestProviderAndRepoName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		info             *GitInfo
		remote, provider string
		repo             string
	}{
		{nil, "https://github.com/acme/docs.git", "github", "acme/docs"},
		{nil, "https://gitlab.example.com/group/sub/docs.git", "gitlab", "group/sub/docs"},
		{&GitInfo{Provider: "gitlab"}, "https://git.example.com/docs", "gitlab", "docs"},
	} {
		if got := provider(tc.info, tc.remote); got != tc.provider {
			t.Errorf("provider(%v, %s) = %s, want %s", tc.info, tc.remote, got, tc.provider)
		}
		if got := repoName(tc.remote); got != tc.repo {
			t.Errorf("repoName(%s) = %s, want %s", tc.remote, got, tc.repo)
		}
	}
}

func TestSamePayloadJoinsTheRunningOperation(t *testing.T) {
	t.Parallel()
	ts := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	a := payload{Space: "s", URL: "https://x/r.git", Ref: "refs/heads/main", SecretRef: "1", User: "u1", Timestamp: &ts}
	b := a
	same := ts
	b.SecretRef, b.User, b.Timestamp = "2", "u2", &same
	b.AuthorName, b.AuthorEmail = "Grace", "grace@example.com"
	if !a.same(b) {
		t.Error("the same operation from another caller does not join")
	}
	b.Ref = "refs/heads/other"
	if a.same(b) {
		t.Error("another ref joins")
	}
}

// A job whose URL carries credentials stays with the replica that holds
// them (jobs.Home); the others go to any replica.
func TestCredentialedJobsStayHome(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		secret string
		home   bool
	}{{"", false}, {"ref", true}} {
		var o jobs.EnqueueOptions
		for _, opt := range (payload{Organization: "org", SecretRef: c.secret}).enqueueOptions() {
			opt(&o)
		}
		if o.Tenant != "org" || o.Home != c.home {
			t.Errorf("secret %q: options %+v, want tenant org and home %v", c.secret, o, c.home)
		}
	}
}

func TestValidateNamesTheField(t *testing.T) {
	t.Parallel()
	s := &Service{cfg: Config{Guard: urlguard.Guard{}}}
	str := func(v string) *string { return &v }
	for _, tc := range []struct {
		in     Request
		export bool
		field  string
	}{
		{Request{Ref: str("refs/heads/main")}, false, "url"},
		{Request{URL: str("https://10.0.0.1/x.git"), Ref: str("refs/heads/main")}, false, "url"},
		{Request{URL: str("https://example.com/x.git")}, false, "ref"},
		{Request{URL: str("https://example.com/x.git"), Ref: str("refs/heads/main")}, true, "commitMessage"},
		{Request{URL: str("https://example.com/x.git"), Ref: str("refs/heads/main"), RepoProjectDirectory: "a/../../b"}, false, "repoProjectDirectory"},
		{Request{URL: str("https://example.com/x.git"), Ref: str("refs/heads/main"), RepoCommitURL: "https://u:p@example.com/c"}, false, "repoCommitURL"},
	} {
		_, _, err := s.validate(tc.in, tc.export)
		if err == nil || !strings.HasPrefix(err.Error(), tc.field) {
			t.Errorf("validate(%+v) = %v, want a problem with %s", tc.in, err, tc.field)
		}
	}
	if _, dir, err := s.validate(Request{URL: str("https://a:b@example.com/x.git"), Ref: str("refs/tags/v1"),
		RepoProjectDirectory: "/docs/"}, false); err != nil || dir != "docs" {
		t.Errorf("a valid import: dir %q, %v", dir, err)
	}
}

// TestToRedirects: a repository's redirects go to content as they were
// read, and a repository without any sends an empty list (which removes
// the space's), never null (which keeps them).
func TestToRedirects(t *testing.T) {
	t.Parallel()
	got := toRedirects([]gitbook.Redirect{{Path: "previous/page", File: "docs/new-folder/page.md", Page: []int{2, 0}}})
	if len(got) != 1 || got[0].Path != "previous/page" || len(got[0].Page) != 2 || got[0].Page[0] != 2 || got[0].Page[1] != 0 {
		t.Errorf("redirects %+v", got)
	}
	if b, err := json.Marshal(contentapi.Import{Redirects: toRedirects(nil)}); err != nil || !strings.Contains(string(b), `"redirects":[]`) {
		t.Errorf("no redirects sent as %s (%v)", b, err)
	}
}

// users answers for identity: the user it has, or err.
type users struct {
	u   identityapi.User
	err error
}

func (s users) User(context.Context, access.Caller) (identityapi.User, error) { return s.u, s.err }

// An export's author is the caller as identity names them; content's copy
// stands in when identity does not answer, or answers for someone else.
func TestExportAuthor(t *testing.T) {
	t.Parallel()
	caller := access.Caller{UserID: "u1"}
	known := contentapi.Author{Name: "u1", Email: "u1@users.noreply.docspub"}
	for _, tc := range []struct {
		name  string
		users Users
		want  contentapi.Author
	}{
		{"identity names them", users{u: identityapi.User{ID: "u1", DisplayName: "Grace", Email: "grace@example.com"}}, contentapi.Author{Name: "Grace", Email: "grace@example.com"}},
		{"no e-mail", users{u: identityapi.User{ID: "u1", DisplayName: "Grace"}}, contentapi.Author{Name: "Grace", Email: known.Email}},
		{"identity down", users{err: errors.New("connection refused")}, known},
		{"another user", users{u: identityapi.User{ID: "u2", DisplayName: "Someone"}}, known},
		{"no identity", nil, known},
	} {
		s := New(nil, nil, nil, Config{Users: tc.users}, nil)
		if got := s.author(t.Context(), caller, known); got != tc.want {
			t.Errorf("%s: author %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
