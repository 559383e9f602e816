package visitkafka

import (
	"testing"

	"github.com/docspub/platform/libs/envelope"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/segmentio/kafka-go"
)

// BenchmarkDecodeMessage reads a log message of a binary batch of about
// 25 KB (its envelope, base64 and visits), as the reader does.
//
//	go test -run '^$' -bench DecodeMessage ./services/insights/internal/visitkafka/
func BenchmarkDecodeMessage(b *testing.B) {
	var value []byte
	err := encodeBinary(manyVisits(12), func(data []byte) {
		value, _ = envelope.Encode(kafkax.Event{ID: "id", Type: EventTypeBinary, Organization: "o", Subject: "s", Data: data})
	})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(value)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := decode(kafka.Message{Value: value}, nil); err != nil {
			b.Fatal(err)
		}
	}
}
