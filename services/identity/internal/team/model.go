// Package team is identity's teams: groups of an organization's members,
// who may see and change them (admins, and a team's owners), and the
// events their changes publish. It knows neither gin nor the MongoDB
// driver: it talks to storage through Store and reads members through
// Members.
package team

import (
	"context"
	"time"

	"github.com/docspub/platform/libs/envelope"
	"github.com/docspub/platform/services/identity/internal/member"
)

// The limits of teams' requests.
const (
	MaxTitle   = 64   // characters
	MaxMembers = 1000 // user references in one team request (members, add, remove, memberships)
)

// Team groups members of an organization.
type Team struct {
	ID           string    `bson:"_id"`
	Organization string    `bson:"organization"`
	Title        string    `bson:"title"`
	CreatedAt    time.Time `bson:"createdAt"`
}

// Team roles.
const (
	RoleOwner  = "owner"
	RoleMember = "member"
)

// Membership is a user's membership of a team.
type Membership struct {
	ID           string    `bson:"_id"`
	Key          string    `bson:"key"` // team/user, unique while live
	Organization string    `bson:"organization"`
	Team         string    `bson:"team"`
	User         string    `bson:"user"`
	Role         string    `bson:"role"` // RoleOwner or RoleMember
	AddedAt      time.Time `bson:"addedAt"`
}

// MembershipKey is the unique key of a live team membership.
func MembershipKey(team, user string) string { return team + "/" + user }

// Store keeps teams and their memberships. Every write records its event
// on the written document in the same update (the outbox); removals mark
// the document deleted (freeing a membership's key) and record the event,
// and reads skip removed documents. Reads of one missing resource return
// an apierr not-found error; a second membership of a user in a team is an
// apierr conflict.
type Store interface {
	Insert(ctx context.Context, t Team, ev envelope.Event) error
	Rename(ctx context.Context, id, title string, ev envelope.Event) error
	// Record records an event on the team without changing it (team.updated
	// after its members changed).
	Record(ctx context.Context, id string, ev envelope.Event) error
	Remove(ctx context.Context, id string, ev envelope.Event) error

	InsertMembership(ctx context.Context, m Membership, ev envelope.Event) error
	SetMembershipRole(ctx context.Context, id, role string, ev envelope.Event) error
	RemoveMembership(ctx context.Context, id string, ev envelope.Event) error

	// Team returns a team of org.
	Team(ctx context.Context, org, id string) (Team, error)
	// Teams returns a page of teams by id and the count of all matching.
	Teams(ctx context.Context, q Query) ([]Team, int, error)
	// Membership returns user's membership of team.
	Membership(ctx context.Context, team, user string) (Membership, error)
	// Memberships returns team memberships by id and the count of all matching.
	Memberships(ctx context.Context, q MembershipQuery) ([]Membership, int, error)
	// Sizes counts the members of each team.
	Sizes(ctx context.Context, teams []string) (map[string]int, error)
	// Counts counts the teams of each user in org.
	Counts(ctx context.Context, org string, users []string) (map[string]int, error)
}

// Query selects a page of an organization's teams, by id.
type Query struct {
	Organization string
	IDs          []string // nil: any team; otherwise only these
	Title        string   // case-insensitive contains
	After        string
	Limit        int
}

// MembershipQuery selects team memberships, by id. Empty fields do not
// filter; Limit 0 returns all.
type MembershipQuery struct {
	Organization, Team, User, Role string
	After                          string
	Limit                          int
}

// Members reads users and memberships of organizations (package
// membermongo's store).
type Members interface {
	Member(ctx context.Context, org, user string) (member.Member, error)
	MembersOf(ctx context.Context, org string, users []string) (map[string]member.Member, error)
	Users(ctx context.Context, ids []string) (map[string]member.User, error)
	UserByEmail(ctx context.Context, email string) (member.User, error)
}
