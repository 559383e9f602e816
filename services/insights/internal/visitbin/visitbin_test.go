package visitbin

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/docspub/platform/services/insights/internal/visit"
	gojson "github.com/goccy/go-json"
	"google.golang.org/protobuf/encoding/protowire"
)

// everyDim is a visit whose every field has a value of its own.
func everyDim(i int) visit.Visit {
	v := visit.Visit{Time: time.Date(2026, 11, 30, 16, 0, 0, i, time.UTC), Visitor: fmt.Sprintf("v%d", i), Session: fmt.Sprintf("s%d", i)}
	d := reflect.ValueOf(&v.Dims).Elem()
	for f := range d.NumField() {
		switch field := d.Field(f); field.Kind() {
		case reflect.String:
			field.SetString(fmt.Sprintf("%s-%d", d.Type().Field(f).Name, i))
		case reflect.Bool:
			field.SetBool(true)
		case reflect.Int:
			field.SetInt(int64(i%3 + 1))
		}
	}
	return v
}

// Every field of a visit comes back as it went, also against the JSON the
// log carries otherwise; a new field of visit.Dims fails here until it has
// a number.
func TestRoundTripEveryField(t *testing.T) {
	in := []visit.Visit{everyDim(1), everyDim(2), {Time: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC), Dims: visit.Dims{EventType: "page_view"}}}
	out, err := Decode(Append(nil, in))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(out, in) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", out, in)
	}
	js, _ := gojson.Marshal(in)
	var fromJSON []visit.Visit
	if err := gojson.Unmarshal(js, &fromJSON); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(out, fromJSON) {
		t.Fatalf("binary and JSON differ:\n binary %+v\n json   %+v", out, fromJSON)
	}
}

// Each field of a visit has a number of its own.
func TestFieldNumbersAreDistinct(t *testing.T) {
	v := everyDim(1)
	b := appendVisitFields(nil, &v)
	seen := map[protowire.Number]bool{}
	for len(b) > 0 {
		n, typ, l := protowire.ConsumeTag(b)
		if l < 0 {
			t.Fatal(protowire.ParseError(l))
		}
		if seen[n] {
			t.Fatalf("field %d written twice", n)
		}
		seen[n] = true
		b = b[l:]
		b = b[protowire.ConsumeFieldValue(n, typ, b):]
	}
	if want := 3 + reflect.TypeFor[visit.Dims]().NumField(); len(seen) != want {
		t.Fatalf("%d fields written, a visit has %d", len(seen), want)
	}
}

// A field a later version adds is skipped.
func TestUnknownFieldsAreSkipped(t *testing.T) {
	v := everyDim(7)
	body := appendVisitFields(nil, &v)
	body = protowire.AppendTag(body, 99, protowire.BytesType)
	body = protowire.AppendString(body, "later")
	body = protowire.AppendTag(body, 98, protowire.Fixed64Type)
	body = protowire.AppendFixed64(body, 1)
	b := protowire.AppendTag(nil, visitField, protowire.BytesType)
	b = protowire.AppendBytes(b, body)
	b = protowire.AppendTag(b, 2, protowire.VarintType) // of the batch
	b = protowire.AppendVarint(b, 5)
	out, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 1 || !reflect.DeepEqual(out[0], v) {
		t.Fatalf("got %+v", out)
	}
}

// Bytes cut anywhere or made up are refused, never a panic.
func TestMalformedIsRefused(t *testing.T) {
	b := Append(nil, []visit.Visit{everyDim(1), everyDim(2)})
	for cut := 1; cut < len(b); cut++ {
		if _, err := Decode(b[:cut]); err == nil {
			// A cut between two visits is a shorter batch, not an error.
			if out, _ := Decode(b[:cut]); len(out) != 1 {
				t.Fatalf("cut at %d: accepted %d visits", cut, len(out))
			}
		} else if !errors.Is(err, ErrMalformed) {
			t.Fatalf("cut at %d: %v", cut, err)
		}
	}
	for _, junk := range [][]byte{{0xff}, {0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f}, {0x0a, 0x02, 0x08}, []byte("[{}]")} {
		if _, err := Decode(junk); !errors.Is(err, ErrMalformed) {
			t.Fatalf("%x: %v", junk, err)
		}
	}
	var many []byte
	for range MaxVisits + 1 {
		many = protowire.AppendTag(many, visitField, protowire.BytesType)
		many = protowire.AppendBytes(many, nil)
	}
	if _, err := Decode(many); !errors.Is(err, ErrMalformed) {
		t.Fatalf("%d empty visits: %v", MaxVisits+1, err)
	}
	if out, err := Decode(many[2:]); err != nil || len(out) != MaxVisits {
		t.Fatalf("%d empty visits: %d, %v", MaxVisits, len(out), err)
	}
	if out, err := Decode(nil); err != nil || len(out) != 0 {
		t.Fatalf("empty: %v %v", out, err)
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(Append(nil, []visit.Visit{everyDim(1)}))
	f.Fuzz(func(t *testing.T, b []byte) {
		out, err := Decode(b)
		if err != nil {
			return
		}
		again, err := Decode(Append(nil, out))
		if err != nil || len(again) != len(out) {
			t.Fatalf("re-encoded: %d visits, %v", len(again), err)
		}
	})
}

// BenchmarkDecode100 decodes a log message of 100 page views in each form.
func BenchmarkDecode100(b *testing.B) {
	visits := make([]visit.Visit, 100)
	for i := range visits {
		visits[i] = visit.Visit{Time: time.Now().UTC(), Visitor: fmt.Sprintf("v%d", i*97), Session: fmt.Sprintf("s%d", i*31),
			Dims: visit.Dims{EventType: "page_view", URL: fmt.Sprintf("https://docs.example.com/guides/%d?utm_source=news", i%25),
				URLPath: fmt.Sprintf("/guides/%d", i%25), Device: "desktop", Browser: "chrome", OS: "windows", Language: "en",
				Referrer: "https://www.example.com/blog?x=1", ReferrerDomain: "www.example.com", UTMSource: "news", GeoCountry: "FR"}}
	}
	bin := Append(nil, visits)
	js, _ := gojson.Marshal(visits)
	b.Run("binary", func(b *testing.B) {
		b.SetBytes(int64(len(bin)))
		for b.Loop() {
			if _, err := Decode(bin); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("json", func(b *testing.B) {
		b.SetBytes(int64(len(js)))
		for b.Loop() {
			var out []visit.Visit
			if err := gojson.Unmarshal(js, &out); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encode-binary", func(b *testing.B) {
		var buf []byte
		for b.Loop() {
			buf = Append(buf[:0], visits)
		}
	})
	b.Run("encode-json", func(b *testing.B) {
		for b.Loop() {
			_, _ = gojson.Marshal(visits)
		}
	})
}
