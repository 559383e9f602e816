package local

import (
	"fmt"
	"testing"
	"time"
)

// TestInsightsReadYourWrites: a client that creates a site posts events for
// it at once and they are accepted, every time, although insights learns
// of sites from sites.events: a site its projection does not know yet is
// asked of sites. The question keeps tenants apart (a site of another
// organization stays a 404, both ways), and with sites down a site insights
// cannot check is a 503 with Retry-After, not a false 404.
func TestInsightsReadYourWrites(t *testing.T) {
	inProcessOnly(t)
	p := startPlatform(t)
	admin := client{t, p.URL, p.Credentials.DemoAdminToken}
	other := client{t, p.URL, p.Credentials.OtherOrgToken}
	org := "/v1/orgs/" + p.Credentials.DemoOrgID
	otherOrg := "/v1/orgs/" + str(items(t, other.status(200, "GET", "/v1/orgs", nil))[0], "id")
	evs := insightsEvents(time.Now().UTC())

	for i := range 20 {
		id := str(admin.op("createSite", "POST", org+"/sites", map[string]any{"title": fmt.Sprintf("Site %d", i)}).json(t), "id")
		// At once, before insights could consume the site's site.created.
		admin.op("trackEventsInSiteById", "POST", org+"/sites/"+id+"/insights/events", batch(evs[i:i+1]))
		// Another organization's member, on their own organization's path.
		other.status(404, "POST", otherOrg+"/sites/"+id+"/insights/events", batch(evs[i:i+1]))
	}

	// The other way: a site just created in the other organization is not
	// the demo organization's.
	otherSite := str(other.status(201, "POST", otherOrg+"/sites", map[string]any{"title": "Theirs"}).json(t), "id")
	admin.status(404, "POST", org+"/sites/"+otherSite+"/insights/events", batch(evs[:1]))
	other.status(204, "POST", otherOrg+"/sites/"+otherSite+"/insights/events", batch(evs[:1]))

	// Unknown sites stay 404, asked or remembered.
	for range 3 {
		admin.status(404, "POST", org+"/sites/nosuchsite/insights/events", batch(evs[:1]))
	}

	// Sites down: a site insights does not know cannot be checked.
	p.StopSites()
	r := admin.status(503, "POST", org+"/sites/notyetknown/insights/events", batch(evs[:1]))
	if r.Header.Get("Retry-After") == "" {
		t.Errorf("503 without Retry-After: %v", r.Header)
	}
	if err := p.StartSites(); err != nil {
		t.Fatalf("restart sites: %v", err)
	}
	admin.status(404, "POST", org+"/sites/notyetknown/insights/events", batch(evs[:1]))
}
