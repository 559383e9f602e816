package contentclient

import (
	"context"
	"net/http"
	"slices"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/libs/internalclient"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/sites/internal/access"
	"github.com/docspub/platform/services/sites/internal/limits"
)

// Access is what content says a caller may do on a space: its organization,
// the caller's level there (content's permission table decides it) and
// whether the space is deleted.
type Access struct {
	Organization string
	Level        roles.Role
	Deleted      bool
}

// retryAfter is the Retry-After of a 503 when content does not answer.
const retryAfter = internalclient.RetryAfter

// errUnavailable is the answer when content cannot tell what a caller may
// see: the caller is shown nothing rather than too much.
func errUnavailable() error {
	return apierr.Unavailable(retryAfter, "content service unavailable: cannot check access to spaces")
}

// Access asks content, in one call (POST /internal/v1/spaces/access with the
// caller's internal token), what the caller may do on each space; more
// than limits.ContentAccessBatch distinct spaces take one call per batch
// (a site holds at most that many site spaces). The map has an entry per
// distinct id; nil for a space the caller cannot view (it does not exist,
// belongs to an organization they are not in, or content's rules refuse
// it). Content not answering, or answering something else than a
// well-formed answer, is a 503: the caller must not be shown more.
func (c *Client) Access(ctx context.Context, caller access.Caller, spaceIDs []string) (map[string]*Access, error) {
	ids := slices.Clone(spaceIDs)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	out := make(map[string]*Access, len(ids))
	for batch := range slices.Chunk(ids, limits.ContentAccessBatch) {
		if err := c.access(ctx, caller, batch, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// access asks content about one batch of distinct ids and adds the answers to out.
func (c *Client) access(ctx context.Context, caller access.Caller, ids []string, out map[string]*Access) error {
	var answer contentapi.AccessAnswer
	// Every id answered, at its longest: bounded by the question's size.
	err := c.content.Do(ctx, internalclient.Request{Method: http.MethodPost, Path: "/internal/v1/spaces/access",
		As: c.as(caller), JSON: contentapi.AccessQuestion{Spaces: ids}, Timeout: limits.ContentTimeout, What: "spaces"},
		&answer, int64(len(ids))*256+1024)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return errUnavailable()
	}
	for _, id := range ids {
		var got *Access
		if a := answer.Spaces[id]; a != nil && a.Organization != "" && roles.Valid(roles.Role(a.Level)) {
			got = &Access{Organization: a.Organization, Level: roles.Role(a.Level), Deleted: a.Deleted}
		} // an answer that does not say what the caller may do grants nothing
		out[id] = got
	}
	return nil
}
