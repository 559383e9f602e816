package apierr

import (
	"errors"
	"regexp"
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
