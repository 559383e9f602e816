package comment

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/services/content/internal/limits"
)

// Limits of the inputs (package limits).
const (
	MaxMarkdown  = limits.CommentMarkdown     // characters of a body
	MaxEmoji     = limits.ReactionEmoji       // characters of one reaction
	MaxReactions = limits.ReactionsPerRequest // emoji in addedReactions, and in removedReactions, of one request
	MaxRefID     = limits.CommentRefID        // characters of a node or page id
	MaxAuthors   = limits.CommentAuthors      // user ids in the authors filter
)

// validate checks a new comment and returns its markdown.
func (in PostInput) validate() (string, error) {
	var p apierr.Problems
	md := checkBody(&p, in.Body, true)
	checkRef(&p, "node", in.Node)
	checkRef(&p, "page", in.Page)
	return md, p.Err()
}

// validate checks a new reply and returns its markdown.
func (in ReplyInput) validate() (string, error) {
	var p apierr.Problems
	md := checkBody(&p, in.Body, true)
	return md, p.Err()
}

// validate checks a change of a reply or comment.
func (in ReplyUpdate) validate() error {
	var p apierr.Problems
	in.check(&p)
	return p.Err()
}

func (in ReplyUpdate) check(p *apierr.Problems) {
	checkBody(p, in.Body, false)
	checkReactions(p, "addedReactions", in.AddedReactions)
	checkReactions(p, "removedReactions", in.RemovedReactions)
	for _, e := range in.RemovedReactions {
		if slices.Contains(in.AddedReactions, e) {
			p.Add("removedReactions", "%q is also in addedReactions", e)
			break
		}
	}
}

// validate checks a filter of comments.
func (f Filter) validate() error {
	var p apierr.Problems
	switch f.Status {
	case "", StatusOpen, StatusResolved:
	default:
		p.Add("status", "must be one of [all open resolved]")
	}
	if f.TargetPage != "" {
		p.Length("targetPage", f.TargetPage, 1, MaxRefID)
	}
	if len(f.Authors) > MaxAuthors {
		p.Add("authors", "must hold at most %d user ids", MaxAuthors)
	}
	for _, a := range f.Authors {
		if utf8.RuneCountInString(a) > MaxRefID {
			p.Add("authors", "user ids must be at most %d characters", MaxRefID)
			break
		}
	}
	return p.Err()
}

// checkBody checks a body and returns its markdown. A nil body is a
// problem only when required.
func checkBody(p *apierr.Problems, d *Document, required bool) string {
	switch {
	case d == nil:
		if required {
			p.Add("body", "is required")
		}
	case d.Markdown == nil && len(d.Document) > 0:
		p.Add("body", `must be {"markdown": string}; the JSON document form is not supported`)
	case d.Markdown == nil:
		p.Add("body.markdown", "is required")
	case strings.TrimSpace(*d.Markdown) == "":
		p.Add("body.markdown", "must not be empty")
	default:
		p.Length("body.markdown", *d.Markdown, 1, MaxMarkdown)
		return *d.Markdown
	}
	return ""
}

// checkRef checks an optional node or page id.
func checkRef(p *apierr.Problems, field string, id *string) {
	if id == nil {
		return
	}
	if strings.TrimSpace(*id) == "" {
		p.Add(field, "must not be empty")
		return
	}
	p.Length(field, *id, 1, MaxRefID)
}

func checkReactions(p *apierr.Problems, field string, emoji []string) {
	if len(emoji) > MaxReactions {
		p.Add(field, "must hold at most %d emoji", MaxReactions)
		return
	}
	for i, e := range emoji {
		f := fmt.Sprintf("%s[%d]", field, i)
		if strings.TrimSpace(e) == "" {
			p.Add(f, "must not be empty")
			continue
		}
		p.Text(f, e, 1, MaxEmoji)
	}
}

// react applies one user's added and removed reactions to rs. Adding an
// emoji the user already reacted with changes nothing; so does removing one
// they did not. It returns the new list (rs is unchanged) and whether it
// differs. Adding is refused (400 naming addedReactions) when the result
// would pass the limits of one comment or reply: limits.ReactionKinds
// distinct emoji, limits.ReactionsPerUser reactions of one user,
// limits.Reactions in all. Removing is always allowed.
func react(rs []Reaction, user string, added, removed []string, at time.Time) ([]Reaction, bool, error) {
	out := slices.Clone(rs)
	grew := false
	for _, e := range added {
		mine := func(r Reaction) bool { return r.Emoji == e && r.User == user }
		if !slices.ContainsFunc(out, mine) {
			out = append(out, Reaction{Emoji: e, User: user, ReactedAt: at})
			grew = true
		}
	}
	n := len(out)
	out = slices.DeleteFunc(out, func(r Reaction) bool { return r.User == user && slices.Contains(removed, r.Emoji) })
	if grew {
		if err := checkReacted(out, user); err != nil {
			return rs, false, err
		}
	}
	return out, grew || len(out) != n, nil
}

// checkReacted checks the reactions of one comment or reply after user added some.
func checkReacted(rs []Reaction, user string) error {
	kinds := map[string]bool{}
	mine := 0
	for _, r := range rs {
		kinds[r.Emoji] = true
		if r.User == user {
			mine++
		}
	}
	switch {
	case len(kinds) > limits.ReactionKinds:
		return apierr.Invalid("addedReactions", "a comment holds at most %d different emoji", limits.ReactionKinds)
	case mine > limits.ReactionsPerUser:
		return apierr.Invalid("addedReactions", "one user reacts at most %d times to a comment", limits.ReactionsPerUser)
	case len(rs) > limits.Reactions:
		return apierr.Invalid("addedReactions", "a comment holds at most %d reactions", limits.Reactions)
	}
	return nil
}
