// Package visitbin is the binary form of visits, as the visit log
// (visitkafka) and the rollups' chunk records carry them when insights runs
// with INSIGHTS_LOG_FORMAT=binary: Protocol Buffers' wire format
// (google.golang.org/protobuf/encoding/protowire), one length-delimited
// field 1 per visit, of this message:
//
//	message Visit {
//	  int64  time_unix_nano = 1;
//	  string visitor = 2;
//	  string session = 3;
//	  // visit.Dims: its strings 10 to 39 and 50 to 58,
//	  // authenticated = 40 (bool), ask_rating = 41 (int64)
//	}
//
// Decoding a batch costs one string and one slice: every string of its
// visits is a part of the one string. A field this version does not know is
// skipped, so a later version may add dimensions.
package visitbin

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/docspub/platform/services/insights/internal/visit"
	"google.golang.org/protobuf/encoding/protowire"
)

// Numbers of a visit's fields: the string dimensions are 10 to 39 and 50
// to 58 (appendVisitFields and stringField say which); a new dimension
// takes a new number, never a used one.
const (
	visitField   protowire.Number = 1 // of the batch: one visit
	timeField    protowire.Number = 1
	visitorField protowire.Number = 2
	sessionField protowire.Number = 3
	authField    protowire.Number = 40 // Dims.Authenticated, varint 1
	askField     protowire.Number = 41 // Dims.AskRating, varint
)

// TypicalVisitBytes is about the size of a page view in binary form.
const TypicalVisitBytes = 160

// lengthRoom is the room left for a visit's length before its fields are
// appended: a varint of up to 2^35 bytes, far more than a visit's limits.
const lengthRoom = 5

// Append appends every visit of visits to b: the batch's form. Each visit
// is appended in place: its fields after room for its length, which is
// then written and the fields moved up to it (no buffer in between).
func Append(b []byte, visits []visit.Visit) []byte {
	b = slices.Grow(b, len(visits)*TypicalVisitBytes)
	for i := range visits {
		b = protowire.AppendTag(b, visitField, protowire.BytesType)
		at := len(b)
		b = appendVisitFields(append(b, make([]byte, lengthRoom)...), &visits[i])
		n := len(b) - at - lengthRoom
		l := len(protowire.AppendVarint(b[at:at], uint64(n))) // written in place
		copy(b[at+l:], b[at+lengthRoom:])
		b = b[:at+l+n]
	}
	return b
}

func appendVisitFields(b []byte, v *visit.Visit) []byte {
	b = protowire.AppendTag(b, timeField, protowire.VarintType)
	b = protowire.AppendVarint(b, uint64(v.Time.UnixNano()))
	b = appendString(b, visitorField, v.Visitor)
	b = appendString(b, sessionField, v.Session)
	d := &v.Dims
	b = appendString(b, 10, d.EventType)
	b = appendString(b, 11, d.URL)
	b = appendString(b, 12, d.URLPath)
	b = appendString(b, 13, d.SiteSection)
	b = appendString(b, 14, d.SiteSpace)
	b = appendString(b, 15, d.SiteShareKey)
	b = appendString(b, 16, d.DisplayContext)
	b = appendString(b, 17, d.Space)
	b = appendString(b, 18, d.Page)
	b = appendString(b, 19, d.GeoCountry)
	b = appendString(b, 20, d.Device)
	b = appendString(b, 21, d.Browser)
	b = appendString(b, 22, d.OS)
	b = appendString(b, 23, d.Bot)
	b = appendString(b, 24, d.Language)
	b = appendString(b, 25, d.Referrer)
	b = appendString(b, 26, d.ReferrerDomain)
	b = appendString(b, 27, d.UTMSource)
	b = appendString(b, 28, d.UTMMedium)
	b = appendString(b, 29, d.UTMCampaign)
	b = appendString(b, 30, d.UTMTerm)
	b = appendString(b, 31, d.UTMContent)
	b = appendString(b, 32, d.Claims)
	b = appendString(b, 33, d.LinkTarget)
	b = appendString(b, 34, d.LinkKind)
	b = appendString(b, 35, d.LinkDomain)
	b = appendString(b, 36, d.LinkPosition)
	b = appendString(b, 37, d.APIPath)
	b = appendString(b, 38, d.APIMethod)
	b = appendString(b, 39, d.LLMSVariant)
	b = appendString(b, 50, d.PageNotFound)
	b = appendString(b, 51, d.MarkdownSource)
	b = appendString(b, 52, d.SearchQuery)
	b = appendString(b, 53, d.SearchRecord)
	b = appendString(b, 54, d.Feedback)
	b = appendString(b, 55, d.FeedbackText)
	b = appendString(b, 56, d.AdDomain)
	b = appendString(b, 57, d.AdPlacement)
	b = appendString(b, 58, d.Trademark)
	if d.Authenticated {
		b = protowire.AppendTag(b, authField, protowire.VarintType)
		b = protowire.AppendVarint(b, 1)
	}
	if d.AskRating != 0 {
		b = protowire.AppendTag(b, askField, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(int64(d.AskRating)))
	}
	return b
}

func appendString(b []byte, n protowire.Number, s string) []byte {
	if s == "" {
		return b
	}
	b = protowire.AppendTag(b, n, protowire.BytesType)
	return protowire.AppendString(b, s)
}

// MaxVisits bounds the visits of one batch Decode takes (an ingest request
// holds visit.MaxEvents at most): it allocates no more than that many.
const MaxVisits = 10 * visit.MaxEvents

// ErrMalformed is returned for bytes that are not a batch of visits.
var ErrMalformed = errors.New("not a batch of visits in binary form")

// Decode returns the visits of a batch in binary form. Its strings share
// one copy of data; data is not kept.
func Decode(data []byte) ([]visit.Visit, error) { return DecodeInto(nil, data) }

// DecodeInto is Decode into dst's array when it has room for the batch's
// visits (each written whole), else into a new one.
func DecodeInto(dst []visit.Visit, data []byte) ([]visit.Visit, error) {
	n, err := count(data)
	if err != nil {
		return nil, err
	}
	text := string(data) // the strings' one allocation
	visits := dst[:0]
	if cap(visits) < n {
		visits = make([]visit.Visit, 0, n)
	}
	for pos := 0; pos < len(data); {
		num, typ, tl := protowire.ConsumeTag(data[pos:])
		pos += tl // count checked every field
		if num != visitField || typ != protowire.BytesType {
			pos += protowire.ConsumeFieldValue(num, typ, data[pos:])
			continue
		}
		body, bl := protowire.ConsumeBytes(data[pos:])
		start := pos + bl - len(body)
		pos += bl
		visits = append(visits, visit.Visit{})
		if err := decodeVisit(&visits[len(visits)-1], data[start:start+len(body)], text[start:start+len(body)]); err != nil {
			return nil, err
		}
	}
	return visits, nil
}

// count checks the batch's fields and counts its visits.
func count(data []byte) (int, error) {
	n := 0
	for pos := 0; pos < len(data); {
		num, typ, tl := protowire.ConsumeTag(data[pos:])
		if tl < 0 {
			return 0, fmt.Errorf("%w: %v", ErrMalformed, protowire.ParseError(tl))
		}
		vl := protowire.ConsumeFieldValue(num, typ, data[pos+tl:])
		if vl < 0 {
			return 0, fmt.Errorf("%w: %v", ErrMalformed, protowire.ParseError(vl))
		}
		if num == visitField && typ == protowire.BytesType {
			if n++; n > MaxVisits {
				return 0, fmt.Errorf("%w: over %d visits", ErrMalformed, MaxVisits)
			}
		}
		pos += tl + vl
	}
	return n, nil
}

// decodeVisit reads one visit's fields from b, whose text is the same
// bytes as a string.
func decodeVisit(v *visit.Visit, b []byte, text string) error {
	for pos := 0; pos < len(b); {
		num, typ, tl := protowire.ConsumeTag(b[pos:])
		if tl < 0 {
			return fmt.Errorf("%w: %v", ErrMalformed, protowire.ParseError(tl))
		}
		pos += tl
		switch typ {
		case protowire.VarintType:
			x, l := protowire.ConsumeVarint(b[pos:])
			if l < 0 {
				return fmt.Errorf("%w: %v", ErrMalformed, protowire.ParseError(l))
			}
			pos += l
			switch num {
			case timeField:
				v.Time = time.Unix(0, int64(x)).UTC()
			case authField:
				v.Dims.Authenticated = x != 0
			case askField:
				v.Dims.AskRating = int(int64(x))
			}
		case protowire.BytesType:
			s, l := protowire.ConsumeBytes(b[pos:])
			if l < 0 {
				return fmt.Errorf("%w: %v", ErrMalformed, protowire.ParseError(l))
			}
			start := pos + l - len(s)
			pos += l
			if f := stringField(v, num); f != nil {
				*f = text[start : start+len(s)]
			}
		default:
			l := protowire.ConsumeFieldValue(num, typ, b[pos:])
			if l < 0 {
				return fmt.Errorf("%w: %v", ErrMalformed, protowire.ParseError(l))
			}
			pos += l
		}
	}
	return nil
}

// stringField is the string field numbered n of v, nil for none.
func stringField(v *visit.Visit, n protowire.Number) *string {
	switch {
	case n == visitorField:
		return &v.Visitor
	case n == sessionField:
		return &v.Session
	case n < 50:
		return dimString(&v.Dims, n)
	}
	return laterDimString(&v.Dims, n)
}

// dimString is the string dimension numbered n (10 to 39) of d.
func dimString(d *visit.Dims, n protowire.Number) *string {
	switch n {
	case 10:
		return &d.EventType
	case 11:
		return &d.URL
	case 12:
		return &d.URLPath
	case 13:
		return &d.SiteSection
	case 14:
		return &d.SiteSpace
	case 15:
		return &d.SiteShareKey
	case 16:
		return &d.DisplayContext
	case 17:
		return &d.Space
	case 18:
		return &d.Page
	case 19:
		return &d.GeoCountry
	case 20:
		return &d.Device
	case 21:
		return &d.Browser
	case 22:
		return &d.OS
	case 23:
		return &d.Bot
	case 24:
		return &d.Language
	case 25:
		return &d.Referrer
	case 26:
		return &d.ReferrerDomain
	case 27:
		return &d.UTMSource
	case 28:
		return &d.UTMMedium
	case 29:
		return &d.UTMCampaign
	case 30:
		return &d.UTMTerm
	case 31:
		return &d.UTMContent
	case 32:
		return &d.Claims
	case 33:
		return &d.LinkTarget
	case 34:
		return &d.LinkKind
	case 35:
		return &d.LinkDomain
	case 36:
		return &d.LinkPosition
	case 37:
		return &d.APIPath
	case 38:
		return &d.APIMethod
	case 39:
		return &d.LLMSVariant
	}
	return nil
}

// laterDimString is the string dimension numbered n (50 and up) of d.
func laterDimString(d *visit.Dims, n protowire.Number) *string {
	switch n {
	case 50:
		return &d.PageNotFound
	case 51:
		return &d.MarkdownSource
	case 52:
		return &d.SearchQuery
	case 53:
		return &d.SearchRecord
	case 54:
		return &d.Feedback
	case 55:
		return &d.FeedbackText
	case 56:
		return &d.AdDomain
	case 57:
		return &d.AdPlacement
	case 58:
		return &d.Trademark
	}
	return nil
}
