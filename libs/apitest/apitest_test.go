package apitest_test

import (
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/apitest"
	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/logx"
	"github.com/gin-gonic/gin"
)

// newClient serves /v1/echo, which answers the caller's user id, the request's content type and body;
// DELETE answers 204 and a missing user 400 naming "user".
func newClient(t *testing.T) *apitest.Client {
	t.Helper()
	signer := apitest.Signer(t)
	e := httpx.NewEngine(logx.Discard(), "test")
	g := e.Group("/v1", internaltoken.Require(signer))
	g.POST("/echo", func(c *gin.Context) {
		p := internaltoken.From(c)
		if p.UserID == "" {
			httpx.Error(c, apierr.Invalid("user", "is required"))
			return
		}
		b, _ := io.ReadAll(c.Request.Body)
		c.Header("X-Seen", "yes")
		c.JSON(http.StatusOK, gin.H{"user": p.UserID, "role": p.Role("o1"), "type": c.ContentType(), "body": string(b)})
	})
	g.DELETE("/echo", func(c *gin.Context) { httpx.NoContent(c, http.StatusNoContent) })
	return apitest.New(t, e, signer)
}

type echo struct {
	User string `json:"user"`
	Role string `json:"role"`
	Type string `json:"type"`
	Body string `json:"body"`
}

func TestDo(t *testing.T) {
	c := newClient(t)
	r := c.Do(internaltoken.Principal{UserID: "ada", Roles: map[string]string{"o1": "admin"}}, "POST", "/v1/echo", `{"a":1}`)
	if r.Status != http.StatusOK || r.Header.Get("X-Seen") != "yes" {
		t.Fatalf("status %d, header %v: %s", r.Status, r.Header, r.Body)
	}
	var got echo
	r.Decode(t, &got)
	if want := (echo{User: "ada", Role: "admin", Type: "application/json", Body: `{"a":1}`}); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if got := apitest.Decode[echo](t, r.Body); got.User != "ada" {
		t.Errorf("Decode = %+v", got)
	}
	if r := c.Do(internaltoken.Principal{UserID: "ada"}, "POST", "/v1/echo", ""); apitest.Decode[echo](t, r.Body).Type != "" {
		t.Errorf("a request without body has a content type: %s", r.Body)
	}
	if r := c.Anonymous("POST", "/v1/echo", ""); r.Status != http.StatusUnauthorized {
		t.Errorf("no token: status %d, want 401", r.Status)
	}
}

func TestExpect(t *testing.T) {
	c := newClient(t)
	ada := internaltoken.Principal{UserID: "ada"}
	c.Expect(t, ada, "POST", "/v1/echo", "", http.StatusOK, "")
	c.Expect(t, ada, "DELETE", "/v1/echo", "", http.StatusNoContent, "removeMemberFromOrganizationById")
	b := c.Expect(t, internaltoken.Principal{Service: "gateway"}, "POST", "/v1/echo", "", http.StatusBadRequest, "").Body
	if msg := apitest.ErrorMessage(t, b); msg != "user: is required" {
		t.Errorf("message %q", msg)
	}
	for _, tc := range []struct {
		name, method string
		status       int
		op, want     string
	}{
		{"wrong status", "POST", http.StatusCreated, "", "status 200, want 201"},
		{"body against the contract", "POST", http.StatusOK, "removeMemberFromOrganizationById", "removeMemberFromOrganizationById"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := failures(func(ft testing.TB) { c.Expect(ft, ada, tc.method, "/v1/echo", "", tc.status, tc.op) })
			if len(got) != 1 || !strings.Contains(got[0], tc.want) {
				t.Errorf("failures %q, want one naming %q", got, tc.want)
			}
		})
	}
	if got := failures(func(ft testing.TB) { apitest.ErrorMessage(ft, []byte(`{"user":"ada"}`)) }); len(got) != 1 {
		t.Errorf("ErrorMessage of a non-error body: failures %q", got)
	}
}

func TestRun(t *testing.T) {
	c := newClient(t)
	as := func(user string) internaltoken.Principal {
		return internaltoken.Principal{UserID: user, Service: "gateway"}
	}
	c.Run(t, as, []apitest.Row{
		{Name: "user", User: "ada", Method: "POST", Path: "/v1/echo", Want: http.StatusOK},
		{Name: "no user", Method: "POST", Path: "/v1/echo", Want: http.StatusBadRequest, Field: "user:"},
		{Name: "delete", User: "ada", Method: "DELETE", Path: "/v1/echo", Want: http.StatusNoContent},
	})
}

// recorder is a testing.TB that records failures; Fatal ends its goroutine.
type recorder struct {
	testing.TB
	failures []string
}

func (r *recorder) Helper()                   {}
func (r *recorder) Error(args ...any)         { r.failures = append(r.failures, fmt.Sprint(args...)) }
func (r *recorder) Errorf(f string, a ...any) { r.failures = append(r.failures, fmt.Sprintf(f, a...)) }
func (r *recorder) Fatalf(f string, a ...any) { r.Errorf(f, a...); runtime.Goexit() }

// failures runs f with a recorder and returns what it reported.
func failures(f func(testing.TB)) []string {
	r := &recorder{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	return r.failures
}
