package reader

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/docspub/platform/services/sites/internal/site"
)

// visitor is who reads: their claims (nil without adaptive content) and
// their signed claims.
type visitor struct {
	claims, signed map[string]any
}

// cookiePath is where the site's cookies apply: its path.
func (rd *read) cookiePath() string {
	if rd.base == "" {
		return "/"
	}
	return rd.base
}

func (rd *read) setCookie(name, value string, maxAge int) {
	rd.resp.Cookies = append(rd.resp.Cookies, Cookie{Name: name, Value: value, Path: rd.cookiePath(), MaxAge: maxAge})
}

// maxCookieAge bounds how long a key or token is kept (a token's own
// expiry comes first).
const maxCookieAge = 30 * 24 * time.Hour

// admit decides whether the reader may read the site, by its visibility:
//   - public, unlisted: anyone;
//   - share-link: an active share link's key, from ?shareKey= (then kept
//     in a cookie) or the cookie; none is a 404, an inactive or unknown
//     one a 403;
//   - visitor-auth: a JWT signed with the site's private key (HS256, not
//     expired), from ?jwt_token= (then kept in a cookie until it expires)
//     or the cookie; without a valid one the reader is sent to the site's
//     fallbackURL, or gets a 401 when it has none.
//
// With adaptive content, the reader's claims are the schema's claims among
// a valid JWT's (on any visibility) and the unsigned ones of the query
// (visitor.<name>=true|false, then kept in a cookie) or the cookie. It
// returns the answer when the reader may not read, and sets rd.st.
func (r *Reader) admit(ctx context.Context, rd *read) *Response {
	st, q := rd.site, rd.req.Query
	switch st.Visibility {
	case site.VisibilityShareLink:
		key, fromQuery := q.Get("shareKey"), true
		if key == "" {
			key, fromQuery = rd.req.Cookies[CookieShareKey], false
		}
		if key == "" {
			return r.notFound(rd, "There is no published site here.")
		}
		ok, err := r.deps.ShareKeys.Active(ctx, st.ID, key)
		if err != nil {
			return r.failed(rd, err)
		}
		if !ok {
			if !fromQuery {
				rd.setCookie(CookieShareKey, "", -1)
			}
			return r.message(rd, http.StatusForbidden, "Link not valid",
				"This share link is not valid: it was deactivated or never existed.")
		}
		if fromQuery {
			rd.setCookie(CookieShareKey, key, int(maxCookieAge.Seconds()))
		}
	case site.VisibilityVisitorAuth:
		claims, ok := r.token(rd)
		if !ok {
			return r.unauthenticated(rd)
		}
		rd.visitor.signed = claims
	default:
		rd.visitor.signed, _ = r.token(rd)
	}
	if st.AdaptiveContent {
		unsigned := unsignedFromCookie(rd.req.Cookies[CookieUnsigned])
		fromQuery, set := unsignedFromQuery(q)
		if set {
			if unsigned == nil {
				unsigned = map[string]any{}
			}
			for k, v := range fromQuery {
				unsigned[k] = v
			}
		}
		rd.visitor.claims = rd.snap.claims.claims(rd.visitor.signed, unsigned)
		if u, _ := rd.visitor.claims["unsigned"].(map[string]any); set && u != nil {
			rd.setCookie(CookieUnsigned, unsignedCookie(u), int(maxCookieAge.Seconds()))
		}
	}
	if len(rd.visitor.claims) == 0 || isEmptyClaims(rd.visitor.claims) {
		rd.st = rd.snap.anonymous
	} else {
		rd.st = r.structure(rd.snap, rd.visitor.claims)
	}
	return nil
}

// isEmptyClaims tells whether claims hold nothing but an empty unsigned
// object: the anonymous structure fits them.
func isEmptyClaims(c map[string]any) bool {
	for k, v := range c {
		if m, ok := v.(map[string]any); k != "unsigned" || !ok || len(m) > 0 {
			return false
		}
	}
	return true
}

// token returns the claims of the reader's valid visitor JWT, from the
// query (kept in a cookie until it expires) or the cookie.
func (r *Reader) token(rd *read) (map[string]any, bool) {
	if rd.snap.auth == nil {
		return nil, false
	}
	now := r.now()
	if tok := rd.req.Query.Get("jwt_token"); tok != "" {
		claims, exp, ok := verifyVisitor(tok, rd.snap.auth.PrivateKey, now)
		if ok {
			rd.setCookie(CookieVisitor, tok, int(min(exp.Sub(now), maxCookieAge).Seconds()))
			return claims, true
		}
	}
	tok := rd.req.Cookies[CookieVisitor]
	if tok == "" {
		return nil, false
	}
	claims, _, ok := verifyVisitor(tok, rd.snap.auth.PrivateKey, now)
	if !ok {
		rd.setCookie(CookieVisitor, "", -1) // expired, or signed with a key regenerated since
	}
	return claims, ok
}

// unauthenticated sends a visitor without a valid token to the site's
// fallback URL (with the URL they asked for as location), or answers 401.
func (r *Reader) unauthenticated(rd *read) *Response {
	if pa := rd.snap.auth; pa != nil && pa.FallbackURL != "" {
		if u, err := url.Parse(pa.FallbackURL); err == nil {
			q := u.Query()
			q.Set("location", rd.origin+rd.req.Path)
			u.RawQuery = q.Encode()
			rd.resp.Status, rd.resp.Location, rd.resp.NoIndex = http.StatusFound, u.String(), true
			return rd.resp
		}
	}
	return r.message(rd, http.StatusUnauthorized, "Sign-in required",
		"This site is only for authenticated visitors. Open it through the link your sign-in gives you.")
}
