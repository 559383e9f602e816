package internaltoken

import (
	"encoding/base64"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/golang-jwt/jwt/v5"
	"github.com/google/go-cmp/cmp"
)

const secret = "0123456789abcdef0123456789abcdef" // 32 bytes

func signerAt(t *testing.T, secret string, now time.Time) *Signer {
	t.Helper()
	return serviceSignerAt(t, "content", secret, now)
}

// serviceSignerAt returns the signer of service with a clock stopped at now.
func serviceSignerAt(t *testing.T, service, secret string, now time.Time) *Signer {
	t.Helper()
	s, err := NewSigner(service, secret, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	s.now = func() time.Time { return now }
	return s
}

func TestMintVerify(t *testing.T) {
	s := signerAt(t, secret, time.Now())
	for _, p := range []Principal{
		{UserID: "u1", Roles: map[string]string{"org1": "admin", "org2": "read"}, TokenID: "tok1"},
		{UserID: "u2"},
		{Service: "sites"},
	} {
		tok, err := s.Mint("content", p)
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Verify(tok)
		if err != nil {
			t.Fatalf("Verify(Mint(%+v)): %v", p, err)
		}
		if diff := cmp.Diff(got, p); diff != "" {
			t.Errorf("principal (-got +want):\n%s", diff)
		}
	}
}

func TestVerifyRefuses(t *testing.T) {
	minted := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	s := signerAt(t, secret, minted)
	p := Principal{UserID: "u1", Roles: map[string]string{"org1": "admin"}}
	valid, err := s.Mint("content", p)
	if err != nil {
		t.Fatal(err)
	}
	forged, err := signerAt(t, strings.Repeat("x", 32), minted).Mint("content", p)
	if err != nil {
		t.Fatal(err)
	}
	forSites, err := serviceSignerAt(t, "sites", secret, minted).Mint("sites", p)
	if err != nil {
		t.Fatal(err)
	}
	sign := func(method jwt.SigningMethod, key any, c jwt.Claims) string {
		tok, err := jwt.NewWithClaims(method, c).SignedString(key)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	good := claims{RegisteredClaims: jwt.RegisteredClaims{
		Issuer: issuer, Subject: "u1", Audience: jwt.ClaimStrings{"content"},
		IssuedAt: jwt.NewNumericDate(minted), ExpiresAt: jwt.NewNumericDate(minted.Add(time.Minute)),
	}}
	with := func(f func(c *claims)) claims { c := good; f(&c); return c }
	parts := strings.Split(valid, ".")

	for _, tc := range []struct {
		name  string
		token string
		at    time.Time
	}{
		{"empty", "", minted},
		{"garbage", "not.a.token", minted},
		{"expired", valid, minted.Add(time.Minute + 6*time.Second)},
		{"forged signature", forged, minted},
		{"tampered payload", parts[0] + "." + jwtSegment(t, `{"iss":"docspub-gateway","sub":"admin","aud":["content"],"exp":9999999999}`) + "." + parts[2], minted},
		{"alg none", sign(jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, good), minted},
		{"alg HS512", sign(jwt.SigningMethodHS512, []byte(secret), good), minted},
		{"wrong issuer", sign(jwt.SigningMethodHS256, []byte(secret), with(func(c *claims) { c.Issuer = "someone" })), minted},
		{"no expiry", sign(jwt.SigningMethodHS256, []byte(secret), with(func(c *claims) { c.ExpiresAt = nil })), minted},
		{"no subject", sign(jwt.SigningMethodHS256, []byte(secret), with(func(c *claims) { c.Subject = "" })), minted},
		{"for another service", forSites, minted},
		{"no audience", sign(jwt.SigningMethodHS256, []byte(secret), with(func(c *claims) { c.Audience = nil })), minted},
		{"empty audience", sign(jwt.SigningMethodHS256, []byte(secret), with(func(c *claims) { c.Audience = jwt.ClaimStrings{""} })), minted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := signerAt(t, secret, tc.at).Verify(tc.token)
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("Verify = %v, want ErrInvalid", err)
			}
		})
	}

	// Within the leeway an expired-by-a-moment token still passes (clock skew).
	if _, err := signerAt(t, secret, minted.Add(time.Minute+4*time.Second)).Verify(valid); err != nil {
		t.Errorf("Verify within the leeway: %v", err)
	}
}

func jwtSegment(t *testing.T, json string) string {
	t.Helper()
	return base64.RawURLEncoding.EncodeToString([]byte(json))
}

func TestNewSigner(t *testing.T) {
	if _, err := NewSigner("content", "short", time.Minute); err == nil {
		t.Errorf("NewSigner with a 5-byte secret succeeded")
	}
	if _, err := NewSigner("", secret, time.Minute); err == nil {
		t.Errorf("NewSigner without a service name succeeded")
	}
	s, err := NewSigner("content", secret, 0)
	if err != nil {
		t.Fatal(err)
	}
	if s.ttl != time.Minute || s.Service() != "content" {
		t.Errorf("ttl = %s, service %q; want 1m, content", s.ttl, s.Service())
	}
	if _, err := s.Mint("", Principal{UserID: "u1"}); err == nil {
		t.Errorf("Mint without an audience succeeded")
	}
}

// TestAudience: a token reaches only the service it was minted for.
func TestAudience(t *testing.T) {
	now := time.Now()
	services := []string{"gateway", "identity", "content", "sites", "insights", "integrations"}
	for _, from := range services {
		for _, to := range services {
			tok, err := serviceSignerAt(t, from, secret, now).Mint(to, Principal{UserID: "u1"})
			if err != nil {
				t.Fatal(err)
			}
			for _, at := range services {
				_, err := serviceSignerAt(t, at, secret, now).Verify(tok)
				if got, want := err == nil, at == to; got != want {
					t.Errorf("token from %s for %s verified by %s: err = %v", from, to, at, err)
				}
			}
		}
	}
}

func TestRequire(t *testing.T) {
	gin.SetMode(gin.TestMode)
	s := signerAt(t, secret, time.Now())
	tok, err := s.Mint("content", Principal{UserID: "u1", Roles: map[string]string{"org1": "edit"}})
	if err != nil {
		t.Fatal(err)
	}
	forSites, err := s.Mint("sites", Principal{UserID: "u1", Roles: map[string]string{"org1": "edit"}})
	if err != nil {
		t.Fatal(err)
	}
	e := gin.New()
	e.GET("/x", Require(s), func(c *gin.Context) {
		p := From(c)
		c.String(http.StatusOK, p.UserID+" "+p.Role("org1")+" "+p.Role("org2"))
	})
	for _, tc := range []struct {
		name, token string
		wantStatus  int
		wantBody    string
	}{
		{"valid", tok, 200, "u1 edit "},
		{"missing", "", 401, `{"error":{"code":401,"message":"missing or invalid internal token"}}`},
		{"invalid", tok + "x", 401, `{"error":{"code":401,"message":"missing or invalid internal token"}}`},
		{"for another service", forSites, 401, `{"error":{"code":401,"message":"missing or invalid internal token"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest("GET", "/x", nil)
			if tc.token != "" {
				req.Header.Set(Header, tc.token)
			}
			w := httptest.NewRecorder()
			e.ServeHTTP(w, req)
			if w.Code != tc.wantStatus || w.Body.String() != tc.wantBody {
				t.Errorf("GET /x = %d %s; want %d %s", w.Code, w.Body, tc.wantStatus, tc.wantBody)
			}
		})
	}
}

func TestRequireService(t *testing.T) {
	gin.SetMode(gin.TestMode)
	s := signerAt(t, secret, time.Now())
	mint := func(p Principal) string {
		tok, err := s.Mint("content", p)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	e := gin.New()
	e.GET("/any", Require(s), RequireService(), func(c *gin.Context) { c.String(http.StatusOK, From(c).Service) })
	e.GET("/gateway", Require(s), RequireService("gateway"), func(c *gin.Context) { c.String(http.StatusOK, "ok") })
	e.GET("/user-of-sites", Require(s), RequireUserOf("sites"), func(c *gin.Context) { c.String(http.StatusOK, "ok") })
	for _, tc := range []struct {
		name, path, token string
		want              int
	}{
		{"a service", "/any", mint(Principal{Service: "sites"}), 200},
		{"a user", "/any", mint(Principal{UserID: "u1"}), 403},
		{"a service for a user", "/any", mint(Principal{UserID: "u1", Service: "sites"}), 403},
		{"the named service", "/gateway", mint(Principal{Service: "gateway"}), 200},
		{"another service", "/gateway", mint(Principal{Service: "sites"}), 403},
		{"a user through the named service", "/user-of-sites", mint(Principal{UserID: "u1", Service: "sites"}), 200},
		{"a user through another service", "/user-of-sites", mint(Principal{UserID: "u1", Service: "integrations"}), 403},
		{"a user through no service", "/user-of-sites", mint(Principal{UserID: "u1"}), 403},
		{"the named service without a user", "/user-of-sites", mint(Principal{Service: "sites"}), 401},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest("GET", tc.path, nil)
			req.Header.Set(Header, tc.token)
			w := httptest.NewRecorder()
			e.ServeHTTP(w, req)
			if w.Code != tc.want {
				t.Errorf("GET %s = %d %s; want %d", tc.path, w.Code, w.Body, tc.want)
			}
		})
	}
}
