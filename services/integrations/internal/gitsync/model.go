// Package gitsync is Git sync of a space: importing a repository's ref in
// GitBook's layout into the space (content writes the revision), exporting
// the space's current revision as a commit pushed to a ref, and the space's
// Git info. Imports and exports are jobs (libs/jobs), one unfinished per
// space; the state of each space's sync (the last commit it synced with,
// the last operation) lives in integrations' database. Credentials embedded
// in a remote URL stay in this process's memory for the job only: never
// stored, logged or returned.
package gitsync

import (
	"context"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/envelope"
)

// Operation directions and states (GitSyncOperationDirection, GitSyncOperationState).
const (
	DirImport = "import"
	DirExport = "export"

	OpRunning = "running"
	OpSuccess = "success"
	OpFailure = "failure"
	OpTimeout = "timeout"
)

// Limits of a request.
const (
	MaxURL           = 2048
	MaxRef           = 255
	MaxProjectDir    = 512
	MaxCommitMessage = 10000
	MaxCacheID       = 256
	// MaxRunningPerOrg bounds an organization's unfinished operations: beyond
	// it a request is a 429, so one organization cannot fill the queue.
	MaxRunningPerOrg = 10
)

// Errors.
var (
	ErrNoSync = apierr.NotFound("this space has no Git sync")
	ErrBusy   = apierr.Conflict("another Git operation is running on this space; retry when it has finished")
)

// Operation is the last operation on a space.
type Operation struct {
	Job       string     `bson:"job"`
	State     string     `bson:"state"`
	Direction string     `bson:"direction"`
	StartedAt time.Time  `bson:"startedAt"`
	EndedAt   *time.Time `bson:"endedAt,omitempty"`
	Error     string     `bson:"error,omitempty"`
}

// State is a space's Git sync state.
type State struct {
	ID           string `bson:"_id"` // the space
	Organization string `bson:"organization"`
	RepoName     string `bson:"repoName"`
	Provider     string `bson:"provider"`
	URL          string `bson:"url"` // without credentials
	Ref          string `bson:"ref"`
	// LastCommit is the commit the space last synced with on URL and Ref.
	LastCommit string `bson:"lastCommit,omitempty"`
	// LastTimestamp is the timestamp of the last operation applied.
	LastTimestamp *time.Time `bson:"lastTimestamp,omitempty"`
	Operation     *Operation `bson:"operation,omitempty"`
	CreatedAt     time.Time  `bson:"createdAt"`
	UpdatedAt     time.Time  `bson:"updatedAt"`
}

// Store keeps the spaces' sync states. Reads of a missing state are apierr
// not-found errors.
type Store interface {
	Get(ctx context.Context, space string) (State, error)
	// Update reads the space's state (a space without one gets
	// State{ID: space}, its CreatedAt zero), applies change to it and
	// stores it with the change's event (nil: none), all or nothing.
	// Another write of the state meanwhile (the request that started a
	// job racing the job's end) is retried once, then an apierr.ErrChanged
	// conflict.
	Update(ctx context.Context, space string, change func(*State) (*envelope.Event, error)) error
	// Running counts org's states whose operation is running.
	Running(ctx context.Context, org string) (int, error)
}

// Request is the body of an import or an export.
type Request struct {
	URL                  *string    `json:"url"`
	Ref                  *string    `json:"ref"`
	CommitMessage        *string    `json:"commitMessage"`
	RepoCacheID          string     `json:"repoCacheID"`
	RepoTreeURL          string     `json:"repoTreeURL"`
	RepoCommitURL        string     `json:"repoCommitURL"`
	RepoProjectDirectory string     `json:"repoProjectDirectory"`
	Timestamp            *time.Time `json:"timestamp"`
	Force                bool       `json:"force"`
	Standalone           bool       `json:"standalone"`
	GitInfo              *GitInfo   `json:"gitInfo"`
}

// GitInfo is what the caller says about the provider.
type GitInfo struct {
	Provider string `json:"provider"`
	URL      string `json:"url"`
}

// Info is a space's Git info as the API returns it (GitSyncState).
type Info struct {
	RepoName             string         `json:"repoName"`
	InstallationID       string         `json:"installationId"`
	InstallationProvider string         `json:"installationProvider"`
	InstallationStatus   string         `json:"installationStatus"`
	Integration          string         `json:"integration"`
	URL                  string         `json:"url"`
	Operation            *OperationView `json:"operation,omitempty"`
	UpdatedAt            time.Time      `json:"updatedAt"`
}

// OperationView is the last operation as the API returns it.
type OperationView struct {
	State     string     `json:"state"`
	Direction string     `json:"direction"`
	StartedAt time.Time  `json:"startedAt"`
	EndedAt   *time.Time `json:"endedAt,omitempty"`
	Error     string     `json:"error,omitempty"`
}

// Installation fields every Git info carries: sync here is the platform's
// own, not an app installed on a provider.
const (
	InstallationID     = "git-sync"
	InstallationActive = "active"
	Integration        = "git-sync"
)
