package visitkafka

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/envelope"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/services/insights/internal/visit"
	gojson "github.com/goccy/go-json"
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
				value, err := envelope.Encode(kafkax.Event{ID: fmt.Sprint(parts), Type: tc.typ, Organization: "o", Subject: "s", Data: data})
				if err != nil {
					t.Fatal(err)
				}
				b, err := decode(kafka.Message{Value: value}, nil)
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

// A message's envelope read without scanning its data (envelopeOf) is the
// envelope decoded whole: as the publisher writes it (envelope.Encode) or
// encoding/json did, and written otherwise (the data before other fields,
// spaces, a data that is not one base64 string, a subject that names the
// data field), in both formats.
func TestEnvelopeOfIsTheWholeDecode(t *testing.T) {
	at := time.Date(2026, 12, 1, 2, 0, 0, 0, time.UTC)
	ev := kafkax.Event{ID: "id1", Type: EventTypeBinary, OccurredAt: at, Organization: "o", Subject: "s", Data: quotedBase64(nil, []byte("visits"))}
	encoded, err := envelope.Encode(ev)
	if err != nil {
		t.Fatal(err)
	}
	marshaled, _ := json.Marshal(ev)
	jsonEv := ev
	jsonEv.Type, jsonEv.Data = EventType, json.RawMessage(`[{"t":"2026-12-01T02:00:00Z","v":"v","s":"s","d":{"type":"page_view"}}]`)
	jsonEncoded, _ := envelope.Encode(jsonEv)
	named := ev
	named.Subject = `s,"data":"AAAA"`
	namedEncoded, _ := envelope.Encode(named)
	values := []string{
		string(encoded), string(marshaled), string(jsonEncoded), string(namedEncoded),
		`{"id":"id1","type":"visits.accepted.bin","data":"dmlzaXRz","subject":"s"}`,
		`{"id":"id1","type":"visits.accepted.bin","data":"dmlz","version":2}`,
		`{"id":"id1","type":"visits.accepted.bin", "data": "dmlzaXRz"}`,
		`{"id":"id1","type":"visits.accepted.bin","data":"dml"zaXRz"}`,
		`{"id":"id1","type":"visits.accepted.bin","data":{"a":"b"}}`,
		`{"id":"id1","data":"dmlzaXRz","type":"visits.accepted.bin","data":"eA=="}`,
		`{"id":"id1","type":"visits.accepted.bin","data":"`,
		`,"data":"dmlzaXRz"}`,
	}
	for _, v := range values {
		var want kafkax.Event
		wantErr := gojson.Unmarshal([]byte(v), &want)
		got, err := envelopeOf([]byte(v))
		if (err != nil) != (wantErr != nil) {
			t.Errorf("%s: error %v; decoded whole: %v", v, err, wantErr)
			continue
		}
		if diff := cmp.Diff(got, want); err == nil && diff != "" {
			t.Errorf("%s (-got +want):\n%s", v, diff)
		}
	}
}

// A binary batch's messages are lent buffers that stay the batch's own
// until given back: the next batch, encoded meanwhile, takes others, and
// once given back they are lent again empty.
func TestBinaryMessagesOutliveTheNextBatch(t *testing.T) {
	var first [][]byte
	if err := encodeBinary(manyVisits(3), func(data []byte) { first = append(first, data) }); err != nil {
		t.Fatal(err)
	}
	want := [][]byte{bytes.Clone(first[0])}
	var second [][]byte
	if err := encodeBinary(manyVisits(300), func(data []byte) { second = append(second, data) }); err != nil {
		t.Fatal(err)
	}
	if len(first) != 1 || !bytes.Equal(first[0], want[0]) {
		t.Fatalf("the first batch's message changed while the next was encoded")
	}
	for _, m := range append(first, second...) {
		buffers.Put(m)
	}
	if b := buffers.Get(); len(b) != 0 {
		t.Errorf("a buffer lent again holds %d bytes", len(b))
	}
}

// A binary message that is not one is refused (the reader logs and skips
// it), never a panic.
func TestMalformedBinaryMessages(t *testing.T) {
	for _, data := range []string{`"!!"`, `"CgX/"`, `{"a":1}`, `"Cg"`} {
		value, _ := json.Marshal(kafkax.Event{ID: "x", Type: EventTypeBinary, Data: json.RawMessage(data)})
		if _, err := decode(kafka.Message{Value: value}, nil); err == nil {
			t.Errorf("%s: read", data)
		}
	}
}

// A binary message's data is standard base64 (what encoding/base64 writes
// and reads: a reader of an earlier release decodes it with the standard
// library), whatever the length, the vector paths' blocks and the tails
// after them; a character out of the alphabet or a cut string is refused.
func TestBinaryDataIsStandardBase64(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 200 {
		for _, size := range []int{n, 1000 + n, 25_000 + n} {
			b := make([]byte, size)
			for i := range b {
				b[i] = byte(rng.Uint32())
			}
			want := `"` + base64.StdEncoding.EncodeToString(b) + `"`
			got := quotedBase64(nil, b)
			if string(got) != want {
				t.Fatalf("%d bytes: %.40s…; want %.40s…", size, got, want)
			}
			back, err := unquoteBase64(got)
			if err != nil || !bytes.Equal(back, b) {
				t.Fatalf("%d bytes: read back %d bytes, %v", size, len(back), err)
			}
			if size < 8 {
				continue
			}
			bad := bytes.Clone(got)
			bad[1+rng.IntN(len(bad)-2)] = '!'
			if _, err := unquoteBase64(bad); err == nil {
				t.Fatalf("%d bytes with a '!': read", size)
			}
			if _, err := unquoteBase64(append(bytes.Clone(got[:len(got)-2]), '"')); err == nil {
				t.Fatalf("%d bytes cut by one character: read", size)
			}
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
