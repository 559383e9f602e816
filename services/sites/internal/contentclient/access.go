package contentclient

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/sites/internal/access"
	"github.com/docspub/platform/services/sites/internal/limits"
)

// Access is what content says a caller may do on a space: its organization,
// the caller's level there (content's permission table decides it) and
// whether the space is deleted.
type Access struct {
	Organization string     `json:"organization"`
	Level        roles.Role `json:"level"`
	Deleted      bool       `json:"deleted"`
}

// retryAfter is the Retry-After of a 503 when content does not answer.
const retryAfter = 5 * time.Second

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
	base, err := c.resolver.Resolve(ctx, Service)
	if err != nil {
		return errUnavailable()
	}
	tok, err := c.token(caller)
	if err != nil {
		return err
	}
	body, err := json.Marshal(map[string][]string{"spaces": ids})
	if err != nil {
		return fmt.Errorf("encode access question: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, limits.ContentTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/internal/v1/spaces/access", bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("build access question: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(internaltoken.Header, tok)
	res, err := c.http.Do(req)
	if err != nil {
		return errUnavailable()
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return errUnavailable()
	}
	var answer struct {
		Spaces map[string]*Access `json:"spaces"`
	}
	// Every id answered, at its longest: bounded by the question's size.
	if err := json.NewDecoder(io.LimitReader(res.Body, int64(len(ids))*256+1024)).Decode(&answer); err != nil {
		return errUnavailable()
	}
	for _, id := range ids {
		a := answer.Spaces[id]
		if a != nil && (a.Organization == "" || !roles.Valid(a.Level)) {
			a = nil // an answer that does not say what the caller may do grants nothing
		}
		out[id] = a
	}
	return nil
}
