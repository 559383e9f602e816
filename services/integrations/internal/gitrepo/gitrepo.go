// Package gitrepo talks to Git repositories over smart HTTP(S) with go-git:
// it clones one ref for an import and commits and pushes for an export.
// Clones go to a temporary directory on disk, never into memory, and are
// removed when the operation ends. Every connection passes the URL guard;
// each operation is bounded in bytes transferred, in time, and, as the
// pack streams in, in objects and their uncompressed bytes (see quota.go),
// so that a small pack that inflates to gigabytes stops at its first
// header past a limit. Credentials embedded in a remote URL are
// used for the operation only: they are split off the URL, handed to go-git
// as basic auth, and never part of what this package returns or says.
package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/docspub/platform/libs/urlguard"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
)

// Limits bound one operation.
type Limits struct {
	MaxBytes         int64         // bytes read from the remote
	MaxInflatedBytes int64         // bytes of the objects received, uncompressed
	MaxObjects       int           // objects received (files, directories, commits)
	MaxObjectBytes   int64         // one object, uncompressed
	Timeout          time.Duration // the whole operation
	// TempDir is where clones go ("": the system's temporary directory).
	TempDir string
}

// Default limits of the uncompressed objects of a clone (see the README's
// Limits): GitHub refuses files over 100 MiB, and a docs repository of a
// few hundred pages and a thousand images has some ten thousand objects.
const (
	DefaultMaxInflatedBytes = 1 << 30
	DefaultMaxObjects       = 100_000
	DefaultMaxObjectBytes   = 100 << 20
)

// withDefaults fills the limits left zero.
func (l Limits) withDefaults() Limits {
	if l.MaxInflatedBytes <= 0 {
		l.MaxInflatedBytes = DefaultMaxInflatedBytes
	}
	if l.MaxObjects <= 0 {
		l.MaxObjects = DefaultMaxObjects
	}
	if l.MaxObjectBytes <= 0 {
		l.MaxObjectBytes = DefaultMaxObjectBytes
	}
	return l
}

// Errors an operation reports; their messages are safe to show.
var (
	ErrTooLarge = errors.New("the repository is larger than the clone limit")
	ErrTimeout  = errors.New("the Git operation took longer than its time limit")
	ErrBlocked  = errors.New("the remote URL is not allowed")
)

// Remote is a repository URL without its credentials, and the credentials.
type Remote struct {
	URL  string // without user information
	auth *githttp.BasicAuth
}

// ParseRemote splits raw (http or https, may embed user:password@) into
// its URL and credentials, and checks it against the guard.
func ParseRemote(raw string, guard urlguard.Guard) (Remote, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return Remote{}, errors.New("must be an http or https URL")
	}
	var r Remote
	if u.User != nil {
		pw, _ := u.User.Password()
		r.auth = &githttp.BasicAuth{Username: u.User.Username(), Password: pw}
		u.User = nil
	}
	u.Fragment, u.RawFragment = "", ""
	if _, err := guard.CheckURL(u.String()); err != nil {
		return Remote{}, errors.New("must be a public http or https URL")
	}
	r.URL = u.String()
	return r, nil
}

// HasCredentials reports whether the URL carried credentials.
func (r Remote) HasCredentials() bool { return r.auth != nil }

// Secrets are the strings a message about the remote must never show.
func (r Remote) Secrets() []string {
	if r.auth == nil {
		return nil
	}
	var out []string
	for _, s := range []string{r.auth.Password, r.auth.Username} {
		if len(s) >= 3 {
			out = append(out, s)
		}
	}
	return out
}

// Redact removes the remote's credentials from a message.
func (r Remote) Redact(msg string) string {
	for _, s := range r.Secrets() {
		msg = strings.ReplaceAll(msg, s, "***")
		msg = strings.ReplaceAll(msg, url.QueryEscape(s), "***")
		msg = strings.ReplaceAll(msg, url.PathEscape(s), "***")
	}
	return msg
}

// op is one operation's transport: its guarded client and byte budget.
type op struct {
	client  *http.Client
	guard   urlguard.Guard
	max     int64
	read    atomic.Int64
	tempDir string
	// pack, when set, is the pack a push sends (see diskSession).
	pack *pack
}

type opKey struct{}

var install sync.Once

// begin installs, once per process, go-git's HTTP(S) transport whose
// connections use the operation found in each request's context, and
// returns ctx carrying a new operation bounded by lim.
func begin(ctx context.Context, guard urlguard.Guard, lim Limits) (context.Context, context.CancelFunc, *op) {
	install.Do(func() {
		hc := &http.Client{Transport: guardedTransport{}, CheckRedirect: checkRedirect}
		c := diskTransport{Transport: githttp.NewClient(hc), http: hc}
		client.InstallProtocol("http", c)
		client.InstallProtocol("https", c)
	})
	o := &op{client: guard.Client(lim.Timeout), guard: guard, max: lim.MaxBytes, tempDir: lim.TempDir}
	ctx, cancel := context.WithTimeout(context.WithValue(ctx, opKey{}, o), lim.Timeout)
	return ctx, cancel, o
}

func checkRedirect(req *http.Request, via []*http.Request) error {
	o, ok := req.Context().Value(opKey{}).(*op)
	if !ok {
		return ErrBlocked
	}
	if len(via) >= 5 {
		return errors.New("too many redirects")
	}
	if _, err := o.guard.CheckURL(req.URL.String()); err != nil {
		return ErrBlocked
	}
	return nil
}

// guardedTransport sends a request with its operation's guarded client and counts
// the bytes of the answer against the operation's budget.
type guardedTransport struct{}

func (guardedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	o, ok := req.Context().Value(opKey{}).(*op)
	if !ok {
		return nil, errors.New("git transport used outside an operation")
	}
	res, err := o.client.Transport.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	res.Body = &counted{rc: res.Body, o: o}
	return res, nil
}

type counted struct {
	rc io.ReadCloser
	o  *op
}

func (c *counted) Read(p []byte) (int, error) {
	n, err := c.rc.Read(p)
	if c.o.read.Add(int64(n)) > c.o.max {
		return n, c.o.cause(ErrTooLarge)
	}
	return n, err
}

// cause is err, or the limit of bytes received when the operation passed it.
func (o *op) cause(err error) error {
	if o.read.Load() > o.max {
		return tooLarge("more than %s to download", size(o.max))
	}
	return err
}

func (c *counted) Close() error { return c.rc.Close() }

// explain turns an operation's error into one safe to show: the kind of
// failure, with the remote's credentials removed.
func explain(ctx context.Context, r Remote, what string, err error) error {
	var le *limitError
	switch {
	case errors.As(err, &le):
		return le
	case errors.Is(err, ErrTooLarge):
		return ErrTooLarge
	case errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded):
		return ErrTimeout
	case errors.Is(err, urlguard.ErrBlocked) || errors.Is(err, ErrBlocked):
		return ErrBlocked
	}
	return fmt.Errorf("%s: %s", what, r.Redact(err.Error()))
}

// CheckRef checks a ref of the form refs/heads/<branch> (or refs/tags/<tag>
// when tags is true), with Git's rules for ref names.
func CheckRef(ref string, tags bool) error {
	msg := "must be a branch ref like refs/heads/main"
	if tags {
		msg = "must be a branch or tag ref like refs/heads/main"
	}
	name, ok := strings.CutPrefix(ref, "refs/heads/")
	if !ok && tags {
		name, ok = strings.CutPrefix(ref, "refs/tags/")
	}
	if !ok || name == "" || len(ref) > 255 || strings.ContainsAny(ref, " ~^:?*[\\\x7f") || strings.Contains(ref, "..") ||
		strings.HasSuffix(ref, "/") || strings.HasSuffix(ref, ".lock") || strings.HasSuffix(ref, ".") ||
		strings.Contains(ref, "//") || strings.Contains(ref, "@{") || strings.Contains(ref, "/.") {
		return errors.New(msg)
	}
	for _, r := range ref {
		if r < 0x20 {
			return errors.New(msg)
		}
	}
	return nil
}
