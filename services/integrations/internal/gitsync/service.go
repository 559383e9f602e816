package gitsync

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/envelope"
	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/libs/internalapi/identityapi"
	"github.com/docspub/platform/libs/internalapi/integrationsapi"
	"github.com/docspub/platform/libs/jobs"
	"github.com/docspub/platform/libs/urlguard"
	"github.com/docspub/platform/services/integrations/internal/access"
	"github.com/docspub/platform/services/integrations/internal/gitbook"
	"github.com/docspub/platform/services/integrations/internal/gitrepo"
)

// Job kinds.
const (
	JobImport = "git.import"
	JobExport = "git.export"
)

// Content is what the service needs of the content service.
type Content interface {
	Access(ctx context.Context, c access.Caller, spaceID string) (contentapi.GitAccess, error)
	// Current is the space's current revision: what an import is built over.
	Current(ctx context.Context, spaceID string) (string, error)
	Content(ctx context.Context, spaceID string) (contentapi.Content, error)
	// Files reads files of a revision in one request, calling fn with
	// each one's bytes in the order of ids.
	Files(ctx context.Context, spaceID, revisionID string, ids []string, max int64, fn func(id string, data []byte) error) error
	PutBlobs(ctx context.Context, spaceID string, blobs []contentapi.Upload) ([]contentapi.File, error)
	CreateRevision(ctx context.Context, spaceID string, r contentapi.Import) (string, error)
	SetSync(ctx context.Context, spaceID string, s contentapi.GitSync) error
}

// Users tells who a user is: identity, the owner of their name and
// e-mail.
type Users interface {
	User(ctx context.Context, c access.Caller) (identityapi.User, error)
}

// Config tunes Git operations.
type Config struct {
	Guard  urlguard.Guard
	Limits gitrepo.Limits
	// Users names an export's author (nil: content's copy of the caller,
	// GitAccess.Author).
	Users Users
}

// Service carries out Git sync.
type Service struct {
	store   Store
	content Content
	queue   jobs.Queue
	cfg     Config
	log     *slog.Logger
	now     func() time.Time

	mu      sync.Mutex
	secrets map[string]string // credentialed remote URLs by secret ref, in memory only
}

// New returns a service.
func New(store Store, content Content, queue jobs.Queue, cfg Config, log *slog.Logger) *Service {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Service{store: store, content: content, queue: queue, cfg: cfg, log: log, now: time.Now, secrets: map[string]string{}}
}

func (s *Service) clock() time.Time { return s.now().UTC().Truncate(time.Millisecond) }

// payload is a job's payload: never credentials (SecretRef names them in
// this process's memory).
type payload struct {
	Space        string     `bson:"space"`
	Organization string     `bson:"organization"`
	User         string     `bson:"user"`
	URL          string     `bson:"url"` // without credentials
	SecretRef    string     `bson:"secretRef,omitempty"`
	Ref          string     `bson:"ref"`
	Message      string     `bson:"message,omitempty"`
	AuthorName   string     `bson:"authorName,omitempty"`
	AuthorEmail  string     `bson:"authorEmail,omitempty"`
	Force        bool       `bson:"force,omitempty"`
	Standalone   bool       `bson:"standalone,omitempty"`
	ProjectDir   string     `bson:"projectDir,omitempty"`
	CommitURL    string     `bson:"commitURL,omitempty"`
	Timestamp    *time.Time `bson:"timestamp,omitempty"`
	Provider     string     `bson:"provider,omitempty"`
	// FromRef is the ref an export to a new branch starts from: the one
	// the space last synced with on the same remote.
	FromRef string `bson:"fromRef,omitempty"`
}

// same reports whether two payloads ask for the same operation.
func (p payload) same(o payload) bool {
	p.SecretRef, o.SecretRef = "", ""
	p.User, o.User = "", ""
	// The author is who asked, as the user.
	p.AuthorName, o.AuthorName, p.AuthorEmail, o.AuthorEmail = "", "", "", ""
	p.FromRef, o.FromRef = "", "" // read from the state, which the first request changed
	eq := func(a, b *time.Time) bool { return (a == nil && b == nil) || (a != nil && b != nil && a.Equal(*b)) }
	if !eq(p.Timestamp, o.Timestamp) {
		return false
	}
	p.Timestamp, o.Timestamp = nil, nil
	return p == o
}

// validate checks a request; export asks for a commit message.
func (s *Service) validate(in Request, export bool) (gitrepo.Remote, string, error) {
	var p apierr.Problems
	var remote gitrepo.Remote
	dir := ""
	switch {
	case in.URL == nil || *in.URL == "":
		p.Add("url", "is required")
	case len(*in.URL) > MaxURL:
		p.Add("url", "must be at most %d characters", MaxURL)
	default:
		r, err := gitrepo.ParseRemote(*in.URL, s.cfg.Guard)
		if err != nil {
			p.Add("url", "%s", err.Error())
		}
		remote = r
	}
	if in.Ref == nil || *in.Ref == "" {
		p.Add("ref", "is required")
	} else if err := gitrepo.CheckRef(*in.Ref, !export); err != nil {
		p.Add("ref", "%s", err.Error())
	}
	if export {
		switch {
		case in.CommitMessage == nil || strings.TrimSpace(*in.CommitMessage) == "":
			p.Add("commitMessage", "is required")
		case len(*in.CommitMessage) > MaxCommitMessage:
			p.Add("commitMessage", "must be at most %d characters", MaxCommitMessage)
		case strings.ContainsRune(*in.CommitMessage, 0):
			p.Add("commitMessage", "must not contain NUL")
		}
	}
	if len(in.RepoProjectDirectory) > MaxProjectDir {
		p.Add("repoProjectDirectory", "must be at most %d characters", MaxProjectDir)
	} else if d, ok := gitbook.Clean(in.RepoProjectDirectory); !ok || apierr.TextProblem(in.RepoProjectDirectory) != "" {
		p.Add("repoProjectDirectory", "must be a directory inside the repository")
	} else {
		dir = d
	}
	if len(in.RepoCacheID) > MaxCacheID {
		p.Add("repoCacheID", "must be at most %d characters", MaxCacheID)
	}
	for field, v := range map[string]string{"repoTreeURL": in.RepoTreeURL, "repoCommitURL": in.RepoCommitURL} {
		checkHTTPURL(&p, field, v)
	}
	if in.GitInfo != nil {
		if in.GitInfo.Provider != "" {
			p.OneOf("gitInfo.provider", in.GitInfo.Provider, "github", "gitlab")
		}
		checkHTTPURL(&p, "gitInfo.url", in.GitInfo.URL)
	}
	return remote, dir, p.Err()
}

func checkHTTPURL(p *apierr.Problems, field, v string) {
	if v == "" {
		return
	}
	u, err := url.Parse(v)
	switch {
	case len(v) > MaxURL:
		p.Add(field, "must be at most %d characters", MaxURL)
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		p.Add(field, "must be an http or https URL")
	case u.User != nil:
		p.Add(field, "must not carry credentials")
	}
}

// Import starts importing the repository into the space (204 at once).
func (s *Service) Import(ctx context.Context, c access.Caller, spaceID string, in Request) error {
	return s.start(ctx, c, spaceID, in, false)
}

// Export starts exporting the space to the repository (204 at once).
func (s *Service) Export(ctx context.Context, c access.Caller, spaceID string, in Request) error {
	return s.start(ctx, c, spaceID, in, true)
}

func (s *Service) start(ctx context.Context, c access.Caller, spaceID string, in Request, export bool) error {
	remote, dir, err := s.validate(in, export)
	if err != nil {
		return err
	}
	a, err := s.content.Access(ctx, c, spaceID)
	if err != nil {
		return err
	}
	if !a.CanSync {
		return apierr.Forbidden("your level in this space does not allow you to sync it with Git")
	}
	if n, err := s.store.Running(ctx, a.Organization); err != nil {
		return err
	} else if n >= MaxRunningPerOrg {
		return apierr.TooMany(10*time.Second, "your organization has %d Git operations running; retry when one has finished", n)
	}
	kind, msg, author := JobImport, "", a.Author
	if export {
		kind, msg, author = JobExport, *in.CommitMessage, s.author(ctx, c, a.Author)
	}
	p := payload{Space: a.Space, Organization: a.Organization, User: c.UserID, URL: remote.URL, Ref: *in.Ref,
		Message: msg, AuthorName: author.Name, AuthorEmail: author.Email, Force: in.Force,
		Standalone: in.Standalone && !export, ProjectDir: dir, CommitURL: in.RepoCommitURL, Timestamp: in.Timestamp,
		Provider: provider(in.GitInfo, remote.URL)}
	if p.Timestamp != nil {
		t := p.Timestamp.UTC()
		p.Timestamp = &t
	}
	if export {
		if st, err := s.store.Get(ctx, a.Space); err == nil && st.URL == p.URL && st.Ref != p.Ref && st.LastCommit != "" {
			p.FromRef = st.Ref
		}
	}
	if remote.HasCredentials() {
		p.SecretRef = s.keep(*in.URL)
	}
	job, created, err := s.enqueue(ctx, kind, p)
	if err != nil {
		s.forget(p.SecretRef)
		return err
	}
	if !created {
		s.forget(p.SecretRef)
		var running payload
		if err := job.Payload.Decode(&running); err == nil && job.Kind == kind && running.same(p) {
			return nil // the same operation is under way: join it
		}
		return ErrBusy
	}
	return s.started(ctx, a, p, job.ID, kind)
}

// enqueue queues the operation's job. A worker records a job's end on the
// space's state before the queue marks the job finished, so a client that
// read the end on git/info and at once starts another operation may find
// the ended job still holding the space's key: that job is waited for
// (endingWait at most), rather than answering that an operation is running.
func (s *Service) enqueue(ctx context.Context, kind string, p payload) (jobs.Job, bool, error) {
	wait := time.NewTimer(endingWait)
	defer wait.Stop()
	poll := time.NewTicker(20 * time.Millisecond)
	defer poll.Stop()
	for {
		job, created, err := s.queue.Enqueue(ctx, kind, jobKey(p.Space), p, p.enqueueOptions()...)
		if err != nil || created || !s.endRecorded(ctx, p.Space, job.ID) {
			return job, created, err
		}
		select {
		case <-ctx.Done():
			return jobs.Job{}, false, ctx.Err()
		case <-wait.C:
			return job, created, nil
		case <-poll.C:
		}
	}
}

// enqueueOptions are the options of the operation's job: its organization's,
// and kept home when its URL carries credentials, which only this process
// holds.
func (p payload) enqueueOptions() []jobs.EnqueueOption {
	opts := []jobs.EnqueueOption{jobs.Tenant(p.Organization)}
	if p.SecretRef != "" {
		opts = append(opts, jobs.Home())
	}
	return opts
}

// endingWait bounds how long a request waits for an ended job to leave the
// queue (it takes one write).
const endingWait = 5 * time.Second

// endRecorded reports whether the space's state records the end of job.
func (s *Service) endRecorded(ctx context.Context, space, job string) bool {
	st, err := s.store.Get(ctx, space)
	return err == nil && st.Operation != nil && st.Operation.Job == job && st.Operation.State != OpRunning
}

// started records the operation as running on the space's state (a
// compare-and-set: the job may be ending meanwhile).
func (s *Service) started(ctx context.Context, a contentapi.GitAccess, p payload, jobID, kind string) error {
	return s.store.Update(ctx, a.Space, func(st *State) (*envelope.Event, error) {
		now := s.clock()
		if st.CreatedAt.IsZero() {
			st.CreatedAt = now
		}
		startedOn(st, a, p, jobID, kind, now)
		ev := integrationsapi.NewGitSyncStarted(st.Organization, st.ID, infoOf(*st))
		return &ev, nil
	})
}

// startedOn records on st the operation as started at now.
func startedOn(st *State, a contentapi.GitAccess, p payload, jobID, kind string, now time.Time) {
	st.Organization = a.Organization
	if st.URL != p.URL || st.Ref != p.Ref {
		st.LastCommit = "" // another remote or ref: nothing synced with it yet
	}
	st.URL, st.Ref, st.RepoName, st.Provider, st.UpdatedAt = p.URL, p.Ref, repoName(p.URL), p.Provider, now
	if st.Operation == nil || st.Operation.Job != jobID { // the job may already have ended
		st.Operation = &Operation{Job: jobID, State: OpRunning, Direction: direction(kind), StartedAt: now}
	}
}

func direction(kind string) string {
	if kind == JobExport {
		return DirExport
	}
	return DirImport
}

func jobKey(space string) string { return "git/" + space }

// keep holds a credentialed URL in memory and returns its reference.
func (s *Service) keep(raw string) string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	ref := hex.EncodeToString(b[:])
	s.mu.Lock()
	s.secrets[ref] = raw
	s.mu.Unlock()
	return ref
}

func (s *Service) forget(ref string) {
	if ref == "" {
		return
	}
	s.mu.Lock()
	delete(s.secrets, ref)
	s.mu.Unlock()
}

func (s *Service) secret(ref string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.secrets[ref]
	return v, ok
}

// author is who an export's commit names: the caller as identity knows
// them. Content's copy (known) stands in when identity does not answer:
// it is down, or the caller is gone; content's copy names a user whose
// creation has not reached it yet by their id.
func (s *Service) author(ctx context.Context, c access.Caller, known contentapi.Author) contentapi.Author {
	if s.cfg.Users == nil {
		return known
	}
	u, err := s.cfg.Users.User(ctx, c)
	if err != nil || u.ID != c.UserID || u.DisplayName == "" {
		s.log.WarnContext(ctx, "export author from content's copy: identity did not name the caller", "user", c.UserID, "err", err)
		return known
	}
	a := contentapi.Author{Name: u.DisplayName, Email: u.Email}
	if a.Email == "" {
		a.Email = known.Email
	}
	return a
}

// Info returns the space's Git info.
func (s *Service) Info(ctx context.Context, c access.Caller, spaceID string) (Info, error) {
	a, err := s.content.Access(ctx, c, spaceID)
	if err != nil {
		return Info{}, err
	}
	st, err := s.store.Get(ctx, a.Space)
	if errors.Is(err, apierr.ErrNotFound) {
		return Info{}, ErrNoSync
	}
	if err != nil {
		return Info{}, err
	}
	if op := st.Operation; op != nil && op.State == OpRunning {
		// A job whose end was not recorded here (its last attempt ran out, or
		// its end raced the request that started it): the job says.
		if j, err := s.queue.Get(ctx, op.Job); err == nil && j.Finished() {
			op.State, op.Error, op.EndedAt = OpSuccess, "", &j.FinishedAt
			if j.State == jobs.Failed {
				op.State, op.Error = OpFailure, j.Error
			}
		}
	}
	return infoOf(st), nil
}

func infoOf(st State) Info {
	v := Info{RepoName: st.RepoName, InstallationID: InstallationID, InstallationProvider: st.Provider,
		InstallationStatus: InstallationActive, Integration: Integration, URL: st.URL, UpdatedAt: st.UpdatedAt}
	if op := st.Operation; op != nil {
		v.Operation = &OperationView{State: op.State, Direction: op.Direction, StartedAt: op.StartedAt, EndedAt: op.EndedAt, Error: op.Error}
	}
	return v
}

// provider is the Git provider: the one the caller names, else the host's.
func provider(info *GitInfo, remote string) string {
	if info != nil && info.Provider != "" {
		return info.Provider
	}
	if u, err := url.Parse(remote); err == nil && strings.Contains(strings.ToLower(u.Hostname()), "gitlab") {
		return "gitlab"
	}
	return "github"
}

// repoName is "owner/name" of a remote URL.
func repoName(remote string) string {
	u, err := url.Parse(remote)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(strings.Trim(u.Path, "/"), ".git")
}
