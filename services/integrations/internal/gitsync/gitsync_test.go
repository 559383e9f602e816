package gitsync

import (
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/urlguard"
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
	if !a.same(b) {
		t.Error("the same operation from another caller does not join")
	}
	b.Ref = "refs/heads/other"
	if a.same(b) {
		t.Error("another ref joins")
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
