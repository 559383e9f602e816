package sitehttp_test

import (
	"testing"

	"github.com/docspub/platform/libs/apitest"
	"github.com/docspub/platform/libs/internalapi/sitesapi"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/google/go-cmp/cmp"
)

// The site lookup answers insights (a service alone) with the live site's
// organization, whatever organization the site is of; anyone else is
// refused, and a deleted or unknown site is a 404.
func TestInternalSiteLookup(t *testing.T) {
	e := newEnv(t)
	st := e.createSite("eve", "org2", "")
	insights := internaltoken.Principal{Service: sitesapi.Insights}

	res := e.api.Do(insights, "GET", sitesapi.SitePath(st.ID), "")
	if res.Status != 200 {
		t.Fatalf("lookup: %d %s", res.Status, res.Body)
	}
	if diff := cmp.Diff(apitest.Decode[sitesapi.Site](t, res.Body), sitesapi.Site{ID: st.ID, Organization: "org2"}); diff != "" {
		t.Errorf("lookup (-got +want):\n%s", diff)
	}
	for _, tc := range []struct {
		name   string
		as     internaltoken.Principal
		path   string
		status int
	}{
		{"a user", as("eve"), sitesapi.SitePath(st.ID), 403},
		{"a user through insights", internaltoken.Principal{Service: sitesapi.Insights, UserID: "eve", Roles: users["eve"]}, sitesapi.SitePath(st.ID), 403},
		{"another service", internaltoken.Principal{Service: "content"}, sitesapi.SitePath(st.ID), 403},
		{"an unknown site", insights, sitesapi.SitePath("nosuchsite"), 404},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := e.api.Do(tc.as, "GET", tc.path, "").Status; got != tc.status {
				t.Errorf("status = %d, want %d", got, tc.status)
			}
		})
	}
	e.ok("eve", "DELETE", sitePath("org2", st.ID), "", 205, "")
	if got := e.api.Do(insights, "GET", sitesapi.SitePath(st.ID), "").Status; got != 404 {
		t.Errorf("a deleted site: status = %d, want 404", got)
	}
}
