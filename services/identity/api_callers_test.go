package identity

import (
	"net/http"
	"testing"
	"time"

	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/libs/waittest"
)

// TestRevokedMemberStopsAtOnce: the membership every request reads is
// cached (a second read of the organization needs no lookup), yet a member
// removed or given a lower role loses what they had within a second (at
// once on this instance: the write drops the cache).
func TestRevokedMemberStopsAtOnce(t *testing.T) {
	e := newEnv(t)
	org, admin, _ := e.seed("", "ada@acme.test", roles.Admin)
	_, rex, _ := e.seed(org, "rex@acme.test", roles.Admin)
	_, eve, _ := e.seed(org, "eve@acme.test", roles.Read)
	for range 3 { // cached now
		e.must(http.StatusOK, rex, "GET", "/v1/orgs/"+org, "")
		e.must(http.StatusOK, eve, "GET", "/v1/orgs/"+org, "")
		e.must(http.StatusOK, rex, "GET", "/v1/orgs/"+org+"/members", "")
	}

	e.must(http.StatusOK, admin, "PATCH", "/v1/orgs/"+org+"/members/"+rex, `{"role":"read"}`)
	waittest.Until(t, "the demoted admin refused", time.Second, func() bool {
		return e.api.Do(as(rex), "PATCH", "/v1/orgs/"+org, `{"title":"Mine"}`).Status == http.StatusForbidden
	})
	e.must(http.StatusNoContent, admin, "DELETE", "/v1/orgs/"+org+"/members/"+eve, "")
	waittest.Until(t, "the removed member refused", time.Second, func() bool {
		return e.api.Do(as(eve), "GET", "/v1/orgs/"+org, "").Status == http.StatusNotFound
	})
	// No wait at all on this instance.
	e.must(http.StatusOK, admin, "PATCH", "/v1/orgs/"+org+"/members/"+rex, `{"role":"admin"}`)
	e.must(http.StatusOK, rex, "PATCH", "/v1/orgs/"+org, `{"title":"Ours"}`)
	e.must(http.StatusNoContent, admin, "DELETE", "/v1/orgs/"+org+"/members/"+rex, "")
	e.must(http.StatusNotFound, rex, "GET", "/v1/orgs/"+org, "")
}
