package local

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/libs/internalapi/identityapi"
	"github.com/segmentio/kafka-go"
)

// A member update made while Kafka is down reaches identity.events once Kafka is back.
func TestMemberEventDeliveredAfterKafkaOutage(t *testing.T) {
	inProcessOnly(t)
	p := startPlatform(t)
	admin := client{t, p.URL, p.Credentials.DemoAdminToken}
	org := "/v1/orgs/" + p.Credentials.DemoOrgID
	readerID := str(items(t, admin.status(200, "GET", org+"/members?search=reader", nil))[0], "user", "id")

	p.StopKafka()
	admin.status(200, "PATCH", org+"/members/"+readerID, map[string]any{"role": "edit"})
	if err := p.ResumeKafka(); err != nil {
		t.Fatalf("resume kafka: %v", err)
	}

	r := kafka.NewReader(kafka.ReaderConfig{Brokers: p.Kafka.Brokers, Topic: "identity.events", StartOffset: kafka.FirstOffset, MaxWait: 100 * time.Millisecond})
	defer r.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for {
		m, err := r.ReadMessage(ctx)
		if errors.Is(err, context.DeadlineExceeded) {
			t.Fatal("member.updated with role edit not delivered within 60s of Kafka's return")
		}
		if err != nil {
			// The topic may not exist until the relay's first write; keep polling until the deadline.
			select {
			case <-ctx.Done():
				t.Fatalf("read identity.events: %v", err)
			case <-time.After(100 * time.Millisecond):
			}
			continue
		}
		var ev struct {
			Type string `json:"type"`
			Data struct {
				Role string `json:"role"`
				User struct {
					ID string `json:"id"`
				} `json:"user"`
			} `json:"data"`
		}
		if json.Unmarshal(m.Value, &ev) == nil && ev.Type == identityapi.MemberUpdated && ev.Data.User.ID == readerID && ev.Data.Role == "edit" {
			return
		}
	}
}

// Content changes made while Kafka is down reach content.events once Kafka is
// back, each in the one envelope: id, type, occurredAt, organization, subject, data.
func TestContentEventsDeliveredAfterKafkaOutage(t *testing.T) {
	inProcessOnly(t)
	p := startPlatform(t)
	admin := client{t, p.URL, p.Credentials.DemoAdminToken}
	org := "/v1/orgs/" + p.Credentials.DemoOrgID

	p.StopKafka()
	col := str(admin.status(201, "POST", org+"/collections", map[string]any{"title": "Offline"}).json(t), "id")
	sp := str(admin.status(201, "POST", org+"/spaces", map[string]any{"title": "Offline", "parent": col}).json(t), "id")
	admin.status(205, "DELETE", "/v1/spaces/"+sp, nil)
	admin.status(200, "POST", "/v1/spaces/"+sp+"/restore", nil)
	cm := str(admin.status(200, "POST", "/v1/spaces/"+sp+"/comments", map[string]any{"body": map[string]any{"markdown": "while down"}}).json(t), "id")
	if err := p.ResumeKafka(); err != nil {
		t.Fatalf("resume kafka: %v", err)
	}

	want := map[string]string{contentapi.CollectionCreated: col, contentapi.SpaceCreated: sp, contentapi.SpaceDeleted: sp, contentapi.SpaceRestored: sp, contentapi.CommentCreated: cm}
	waitForEvents(t, p, "content.events", want)
}

// waitForEvents reads topic from the start until it has seen an event of
// each type in want with the subject want gives ("" = any subject), in the
// platform's envelope, or fails after 60 s.
func waitForEvents(t *testing.T, p *Platform, topic string, want map[string]string) {
	t.Helper()
	want = maps.Clone(want)
	r := kafka.NewReader(kafka.ReaderConfig{Brokers: p.Kafka.Brokers, Topic: topic, StartOffset: kafka.FirstOffset, MaxWait: 100 * time.Millisecond})
	defer r.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for len(want) > 0 {
		m, err := r.ReadMessage(ctx)
		if errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("not delivered to %s within 60s: %v", topic, want)
		}
		if err != nil {
			select {
			case <-ctx.Done():
				t.Fatalf("read %s: %v", topic, err)
			case <-time.After(100 * time.Millisecond): // the topic may not exist yet; poll until the deadline
			}
			continue
		}
		var ev struct {
			ID, Type, Organization, Subject string
			OccurredAt                      time.Time
			Data                            map[string]any
		}
		if err := json.Unmarshal(m.Value, &ev); err != nil {
			t.Fatalf("event %s: %v", m.Value, err)
		}
		if subject, ok := want[ev.Type]; ok && (subject == "" || ev.Subject == subject) {
			if ev.ID == "" || ev.OccurredAt.IsZero() || ev.Organization == "" || ev.Data["id"] != ev.Subject || string(m.Key) != ev.Subject {
				t.Errorf("event envelope %s (key %q)", m.Value, m.Key)
			}
			delete(want, ev.Type)
		}
	}
}

// With Kafka down, ingest answers 503 with Retry-After and records nothing;
// once Kafka is back, every event accepted before the outage is counted
// exactly once, even when a client sends an accepted batch again.
func TestInsightsIngestDuringKafkaOutage(t *testing.T) {
	inProcessOnly(t)
	p := startPlatform(t)
	admin := client{t, p.URL, p.Credentials.DemoAdminToken}
	org := "/v1/orgs/" + p.Credentials.DemoOrgID
	site := org + "/sites/" + str(admin.op("createSite", "POST", org+"/sites", map[string]any{"title": "Docs site"}).json(t), "id")
	eventually(t, "the site known to insights", func() bool {
		return admin.do("POST", site+"/insights/events", map[string]any{"events": []any{}}).Status == 204
	})
	evs := insightsEvents(time.Now().UTC())
	before, during, after := batch(evs[:20]), batch(evs[20:30]), batch(evs[30:])
	total := func() float64 {
		got := aggregate(t, admin, site, map[string]any{"range": "last24Hours", "select": []any{map[string]any{"column": "eventsCount"}}})
		if len(got["eventsCount"]) == 0 {
			return 0
		}
		return got["eventsCount"][0].(float64)
	}
	admin.status(204, "POST", site+"/insights/events", before)
	eventually(t, "the accepted batch counted", func() bool { return total() == 20 })

	p.StopKafka()
	r := admin.status(503, "POST", site+"/insights/events", during)
	if r.Header.Get("Retry-After") == "" {
		t.Errorf("503 without Retry-After")
	}
	if err := p.ResumeKafka(); err != nil {
		t.Fatalf("resume kafka: %v", err)
	}
	eventually(t, "ingest accepted again", func() bool {
		return admin.do("POST", site+"/insights/events", after).Status == 204
	})
	admin.status(204, "POST", site+"/insights/events", before) // sent again: counts once
	want := float64(20 + len(evs) - 30)
	eventually(t, fmt.Sprintf("%v events counted", want), func() bool { return total() == want })
	// Nothing more arrives later: no batch counted twice, none of the refused one.
	admin.status(204, "POST", site+"/insights/events", batch(evs[20:21]))
	eventually(t, "the last event counted", func() bool { return total() == want+1 })
}
