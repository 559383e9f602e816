package apierr

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Problems collects field problems so a request reports them all at once.
// Its Err joins them into one 400 whose message names every field.
type Problems struct {
	list []*Error
}

// Add records a problem with a field.
func (p *Problems) Add(field, format string, args ...any) {
	p.list = append(p.list, Invalid(field, format, args...))
}

// Len returns how many problems were recorded.
func (p *Problems) Len() int { return len(p.list) }

// Err returns nil when there is no problem, else a 400 listing them.
func (p *Problems) Err() error {
	if len(p.list) == 0 {
		return nil
	}
	if len(p.list) == 1 {
		return p.list[0]
	}
	msg := p.list[0].Message
	for _, e := range p.list[1:] {
		msg += "; " + e.Message
	}
	return &Error{Status: p.list[0].Status, Message: msg, Field: p.list[0].Field}
}

// Length checks a string's length in characters (not bytes) against [min,max].
// max < 0 means no upper bound.
func (p *Problems) Length(field, s string, min, max int) {
	n := utf8.RuneCountInString(s)
	switch {
	case n < min && min == 1:
		p.Add(field, "must not be empty")
	case n < min:
		p.Add(field, "must be at least %d characters", min)
	case max >= 0 && n > max:
		p.Add(field, "must be at most %d characters", max)
	}
}

// Pattern checks that s matches re.
func (p *Problems) Pattern(field, s string, re *regexp.Regexp) {
	if !re.MatchString(s) {
		p.Add(field, "must match %s", re.String())
	}
}

// OneOf checks that s is one of the allowed values.
func (p *Problems) OneOf(field, s string, allowed ...string) {
	for _, a := range allowed {
		if s == a {
			return
		}
	}
	p.Add(field, "must be one of %v", allowed)
}

// IsInvalid reports whether err is a 400.
func IsInvalid(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Status == 400
}

// Text checks a single-line name or title: its length in characters within
// [min,max] (max < 0: no upper bound), and no character that would hide or
// corrupt what a reader sees (see TextProblem).
func (p *Problems) Text(field, s string, min, max int) {
	if why := TextProblem(s); why != "" {
		p.Add(field, "%s", why)
		return
	}
	p.Length(field, s, min, max)
}

// Segment checks one segment of a URL path chosen by a client (a basename,
// a section path): Text's rules, and neither "." nor "..", nor a slash or
// backslash.
func (p *Problems) Segment(field, s string, min, max int) {
	if why := SegmentProblem(s); why != "" {
		p.Add(field, "%s", why)
		return
	}
	p.Length(field, s, min, max)
}

// HTTPURL checks an absolute http or https URL with a host, of at most max
// characters, with no character Text refuses (a URL a client sets for a
// browser to follow, such as a redirect target).
func (p *Problems) HTTPURL(field, s string, max int) {
	if why := TextProblem(s); why != "" {
		p.Add(field, "%s", why)
		return
	}
	if utf8.RuneCountInString(s) > max {
		p.Add(field, "must be at most %d characters", max)
		return
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || strings.ContainsAny(s, " \\") {
		p.Add(field, "must be an absolute http(s) URL")
	}
}

// TextProblem says why s is not acceptable as a single-line text, "" when it
// is: invalid UTF-8, NUL and other control characters (line breaks and tabs
// included), and the Unicode format controls that reorder or hide text
// (bidirectional overrides and isolates, zero-width joiners' relatives, the
// byte-order mark).
func TextProblem(s string) string {
	if !utf8.ValidString(s) {
		return "must be valid UTF-8"
	}
	for _, r := range s {
		switch {
		case r == 0:
			return "must not contain NUL"
		case unicode.IsControl(r):
			return fmt.Sprintf("must not contain the control character U+%04X", r)
		case isHiddenFormat(r):
			return fmt.Sprintf("must not contain the invisible format character U+%04X", r)
		}
	}
	return ""
}

// SegmentProblem says why s is not acceptable as a path segment, "" when it is.
func SegmentProblem(s string) string {
	if why := TextProblem(s); why != "" {
		return why
	}
	switch {
	case s == "." || s == "..":
		return `must not be "." or ".."`
	case strings.ContainsAny(s, `/\`):
		return "must not contain a slash or a backslash"
	}
	return ""
}

// isHiddenFormat reports the format characters (Unicode category Cf) that
// change how text around them reads: bidirectional marks, embeddings,
// overrides and isolates, invisible operators, and the byte-order mark.
// Joiners used by emoji sequences (U+200D) and variation selectors are allowed.
func isHiddenFormat(r rune) bool {
	switch {
	case r == 0x200D: // zero-width joiner: part of emoji sequences
		return false
	case r >= 0x200B && r <= 0x200F, // zero-width space, non-joiner, LRM, RLM
		r >= 0x202A && r <= 0x202E, // LRE, RLE, PDF, LRO, RLO
		r >= 0x2060 && r <= 0x2069, // word joiner, invisible operators, LRI, RLI, FSI, PDI
		r == 0x061C,                // Arabic letter mark
		r == 0xFEFF,                // byte-order mark
		r >= 0xFFF9 && r <= 0xFFFB: // interlinear annotation
		return true
	}
	return false
}
