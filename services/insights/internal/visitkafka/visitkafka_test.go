package visitkafka

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/services/insights/internal/visit"
	"github.com/google/go-cmp/cmp"
	"github.com/segmentio/kafka-go"
)

// manyVisits are n visits of about 2 KB each.
func manyVisits(n int) []visit.Visit {
	vs := make([]visit.Visit, n)
	for i := range vs {
		vs[i] = visit.Visit{Time: time.Date(2026, 11, 30, 12, 0, 0, i, time.UTC), Visitor: fmt.Sprintf("v%d", i), Session: fmt.Sprintf("s%d", i),
			Dims: visit.Dims{EventType: "page_view", URL: "https://docs.example.com/" + strings.Repeat("a", 2000), AskRating: i % 3}}
	}
	return vs
}

// Each format's messages, as the publisher's envelope carries them, read
// back as the visits written, split under maxMessageBytes when a batch is
// larger; a JSON message keeps its bytes for the chunk record, a binary one
// its binary form.
func TestMessagesReadBackInBothFormats(t *testing.T) {
	for _, tc := range []struct {
		format   Format
		typ      string
		n, parts int
	}{{JSON, EventType, 10, 1}, {Binary, EventTypeBinary, 10, 1}, {JSON, EventType, 600, 3}, {Binary, EventTypeBinary, 600, 4}} {
		t.Run(fmt.Sprintf("%s %d", tc.typ, tc.n), func(t *testing.T) {
			in := manyVisits(tc.n)
			encode := map[Format]func([]visit.Visit, func([]byte)) error{JSON: encodeJSON, Binary: encodeBinary}[tc.format]
			var out []visit.Visit
			parts := 0
			err := encode(in, func(data []byte) {
				parts++
				if len(data) > maxMessageBytes+2 {
					t.Errorf("message of %d bytes", len(data))
				}
				value, err := json.Marshal(kafkax.Event{ID: fmt.Sprint(parts), Type: tc.typ, Organization: "o", Subject: "s", Data: data})
				if err != nil {
					t.Fatal(err)
				}
				b, err := decode(kafka.Message{Value: value})
				if err != nil {
					t.Fatal(err)
				}
				if (b.Encoded != nil) != (tc.format == JSON) || (b.Binary != nil) != (tc.format == Binary) {
					t.Errorf("encoded %d bytes, binary %d bytes", len(b.Encoded), len(b.Binary))
				}
				out = append(out, b.Visits...)
			})
			if err != nil {
				t.Fatal(err)
			}
			if parts != tc.parts {
				t.Errorf("%d messages, want %d", parts, tc.parts)
			}
			if diff := cmp.Diff(out, in); diff != "" {
				t.Errorf("visits read back (-got +want):\n%s", diff)
			}
		})
	}
}

// A binary message that is not one is refused (the reader logs and skips
// it), never a panic.
func TestMalformedBinaryMessages(t *testing.T) {
	for _, data := range []string{`"!!"`, `"CgX/"`, `{"a":1}`, `"Cg"`} {
		value, _ := json.Marshal(kafkax.Event{ID: "x", Type: EventTypeBinary, Data: json.RawMessage(data)})
		if _, err := decode(kafka.Message{Value: value}); err == nil {
			t.Errorf("%s: read", data)
		}
	}
}

func TestParseFormat(t *testing.T) {
	for s, want := range map[string]Format{"json": JSON, "binary": Binary} {
		if f, err := ParseFormat(s); err != nil || f != want {
			t.Errorf("%s: %v %v", s, f, err)
		}
	}
	if _, err := ParseFormat("protobuf"); err == nil || !strings.Contains(err.Error(), "INSIGHTS_LOG_FORMAT") {
		t.Errorf("protobuf: %v", err)
	}
}
