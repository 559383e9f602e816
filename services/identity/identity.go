// Package identity is the identity service: organizations, members, teams,
// invites, SAML providers and API tokens. It exposes its wiring (New, Run)
// so that the local runner and tests start it in-process, and Bootstrap for
// seeding an organization with an admin and an API token.
package identity

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"

	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/ops"

	"github.com/docspub/platform/libs/config"
	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internalapi/identityapi"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/libs/service"
	"github.com/docspub/platform/services/identity/internal/invite"
	"github.com/docspub/platform/services/identity/internal/invitehttp"
	"github.com/docspub/platform/services/identity/internal/invitemongo"
	"github.com/docspub/platform/services/identity/internal/member"
	"github.com/docspub/platform/services/identity/internal/memberhttp"
	"github.com/docspub/platform/services/identity/internal/membermongo"
	"github.com/docspub/platform/services/identity/internal/organization"
	"github.com/docspub/platform/services/identity/internal/organizationhttp"
	"github.com/docspub/platform/services/identity/internal/organizationmongo"
	"github.com/docspub/platform/services/identity/internal/saml"
	"github.com/docspub/platform/services/identity/internal/samlhttp"
	"github.com/docspub/platform/services/identity/internal/samlmongo"
	"github.com/docspub/platform/services/identity/internal/team"
	"github.com/docspub/platform/services/identity/internal/teamhttp"
	"github.com/docspub/platform/services/identity/internal/teammongo"
	"github.com/docspub/platform/services/identity/internal/token"
	"github.com/docspub/platform/services/identity/internal/tokenhttp"
	"github.com/docspub/platform/services/identity/internal/tokenmongo"
	"github.com/gin-gonic/gin"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// Topic is where identity publishes its events.
const Topic = identityapi.Topic

// Name is the service's name in discovery: the audience of the internal
// tokens it accepts.
const Name = "identity"

// Ops names identity's database for the operator's commands
// (libs/ops: dead letters, backup, restore, check).
var Ops = ops.Service{Name: "identity", DatabaseVar: "IDENTITY_DB", DatabaseDefault: "identity"}

// Config is the service's configuration, from the environment.
type Config struct {
	// Base is MONGO_URI, MONGO_READ_URI, KAFKA_*, INTERNAL_TOKEN_*, LOG_LEVEL and DISCOVERY (service.Base).
	service.Base
	service.URLs        // PUBLIC_URL, APP_URL
	Addr         string `env:"IDENTITY_ADDR, default=127.0.0.1:8081"`
	Database     string `env:"IDENTITY_DB, default=identity"`
}

// Validate reports every problem of the configuration at once.
func (c Config) Validate() error {
	var p config.Problems
	c.Base.Check(&p)
	c.URLs.Check(&p)
	p.Require("IDENTITY_ADDR", c.Addr)
	p.Require("IDENTITY_DB", c.Database)
	return p.Err()
}

func (c Config) urls() organization.URLs {
	return organization.URLs{Public: strings.TrimRight(c.PublicURL, "/"), App: strings.TrimRight(c.AppURL, "/")}
}

// App is a wired identity service.
type App struct {
	cfg     Config
	core    *service.Core
	tokens  *token.Service
	callers *organization.Callers
	handler *gin.Engine
}

// New connects to MongoDB, ensures the indexes, and wires the Kafka
// publisher, the outbox relay and the HTTP handler.
func New(ctx context.Context, cfg Config, log *slog.Logger) (*App, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	core, err := service.Open(ctx, service.CoreConfig{Service: Name, MongoURI: cfg.MongoURI, MongoReadURI: cfg.MongoReadURI, Database: cfg.Database,
		Kafka: cfg.Kafka, InternalTokenSecret: cfg.InternalTokenSecret, InternalTokenKeys: cfg.InternalTokenKeys, Topic: Topic,
		EventCollections: slices.Concat([]string{organizationmongo.Collection}, membermongo.Collections(), teammongo.Collections(),
			[]string{invitemongo.Collection, samlmongo.Collection, tokenmongo.Collection}),
		Indexes: indexes(), Discovery: cfg.Discovery}, log)
	if err != nil {
		return nil, err
	}
	s := newServices(core.Mongo, cfg.urls(), claimsSecret(cfg), core.Relay.Notify)
	e := httpx.NewEngine(log, "identity", mongox.Ping(core.Client))
	s.register(e, core.Signer)
	return &App{cfg: cfg, core: core, tokens: s.tokens, callers: s.callers, handler: e}, nil
}

// claimsSecret is what the visitor-claims keys handed to organizations
// derive from: INTERNAL_TOKEN_SECRET while it is set, so that rotating the
// internal token keys does not change them; without it, the signing key.
func claimsSecret(cfg Config) string {
	if cfg.InternalTokenSecret != "" {
		return cfg.InternalTokenSecret
	}
	return cfg.InternalTokenKeys.Signing("")
}

// services are identity's domain services over their stores.
type services struct {
	orgs      *organization.Service
	members   *member.Service
	teams     *team.Service
	invites   *invite.Service
	providers *saml.Service
	tokens    *token.Service
	// callers are the organizations' cached callers, which every write
	// with events drops the organization's of.
	callers *organization.Callers
}

// register adds every route to e behind internaltoken.Require(signer).
func (s services) register(e *gin.Engine, signer *internaltoken.Signer) {
	organizationhttp.Register(e, s.orgs, signer)
	memberhttp.Register(e, s.members, signer)
	teamhttp.Register(e, s.teams, signer)
	invitehttp.Register(e, s.invites, signer)
	samlhttp.Register(e, s.providers, signer)
	tokenhttp.Register(e, s.tokens, signer)
}

// newServices wires every store and domain service on db. A write with
// events calls notify (nil: none; the relay's Notify, so that they leave at
// once) and reaches this instance's cached callers at once (their
// organization's).
func newServices(db mongox.DB, urls organization.URLs, claimsSecret string, notify func()) services {
	callers := organization.NewCallers()
	written := func(evs []kafkax.Event) {
		if notify != nil {
			notify()
		}
		callers.Forget(evs...)
	}
	orgStore, memberStore, teamStore := organizationmongo.NewStore(db, written), membermongo.NewStore(db, written), teammongo.NewStore(db, written)
	inviteStore, samlStore, tokenStore := invitemongo.NewStore(db, written), samlmongo.NewStore(db, written), tokenmongo.NewStore(db, written)
	lookup := member.Lookup{Store: memberStore}
	orgs := organization.New(orgStore, lookup, urls, callers)
	teams := team.New(teamStore, memberStore, orgs)
	tokens := token.New(tokenStore, lookup)
	members := member.New(memberStore, orgs, teams, tokens, claimsSecret)
	return services{orgs: orgs, members: members, teams: teams, tokens: tokens,
		invites: invite.New(inviteStore, orgs, members, urls), providers: saml.New(samlStore, orgs, teams, urls),
		callers: callers}
}

// indexes are the indexes of identity's stores.
func indexes() []mongox.Index {
	return slices.Concat(organizationmongo.Indexes(), membermongo.Indexes(), teammongo.Indexes(),
		invitemongo.Indexes(), samlmongo.Indexes(), tokenmongo.Indexes())
}

// Handler returns the HTTP handler.
func (a *App) Handler() http.Handler { return a.handler }

// Database returns the service's database.
func (a *App) Database() *mongo.Database { return a.core.Mongo.Database }

// RevokeToken revokes an API token by id, as the identity-admin command
// does, through the running service: its relay publishes token.revoked at once.
func (a *App) RevokeToken(ctx context.Context, tokenID string) error {
	return a.tokens.Revoke(ctx, tokenID)
}

// Bootstrap is the package's Bootstrap through the running service: its
// relay publishes the changes' events at once, instead of at its next
// idle sweep.
func (a *App) Bootstrap(ctx context.Context, in BootstrapInput) (BootstrapResult, error) {
	r, err := Bootstrap(ctx, a.Database(), in)
	a.core.Relay.Notify()
	return r, err
}

// RunBackground starts the outbox relay; it stops when ctx is done.
func (a *App) RunBackground(ctx context.Context) {
	a.core.RunRelay(ctx)
	// Another replica's change (a member removed, a role changed) reaches
	// this one's cached callers of its organization when its event does
	// (callerTTL the backstop).
	a.core.FollowChanges(ctx, Topic, func(ev kafkax.Event) { a.callers.Forget(ev) })
}

// Close closes the Kafka publisher and the MongoDB connection.
func (a *App) Close(ctx context.Context) error {
	return a.core.Close(ctx)
}

// Run starts the service and serves cfg.Addr until ctx is done.
func Run(ctx context.Context, cfg Config, log *slog.Logger) error {
	log.InfoContext(ctx, "starting identity", "config", config.Describe(cfg))
	a, err := New(ctx, cfg, log)
	if err != nil {
		return err
	}
	return service.Run(ctx, "identity", cfg.Addr, a, log, a.core.Announce())
}

// BootstrapInput says what Bootstrap sets up.
type BootstrapInput struct {
	OrganizationID                                string // "" = create a new organization titled OrganizationTitle
	OrganizationTitle, UserDisplayName, UserEmail string
	Role                                          roles.Role
}

// BootstrapResult is what Bootstrap made; Token is the raw API token, shown once.
type BootstrapResult struct {
	OrganizationID, UserID, TokenID, Token string
}

// Bootstrap creates (or reuses) an organization, a user (reused by e-mail),
// the user's membership with the role, and a new API token. Its changes push
// their events as API changes do; a running relay publishes them. Resources
// in the event data carry the default PUBLIC_URL/APP_URL bases.
func Bootstrap(ctx context.Context, db *mongo.Database, in BootstrapInput) (BootstrapResult, error) {
	if err := mongox.EnsureIndexes(ctx, db, indexes()...); err != nil {
		return BootstrapResult{}, err
	}
	var cfg Config
	if err := config.LoadMap(ctx, &cfg, map[string]string{}); err != nil {
		return BootstrapResult{}, err
	}
	r, err := newServices(mongox.NewDB(db), cfg.urls(), "", nil).members.Bootstrap(ctx, member.BootstrapInput{
		OrganizationID: in.OrganizationID, OrganizationTitle: in.OrganizationTitle,
		UserDisplayName: in.UserDisplayName, UserEmail: in.UserEmail, Role: in.Role,
	})
	if err != nil {
		return BootstrapResult{}, fmt.Errorf("bootstrap: %w", err)
	}
	return BootstrapResult{OrganizationID: r.OrganizationID, UserID: r.UserID, TokenID: r.TokenID, Token: r.Token}, nil
}

// RevokeToken revokes an API token by id and publishes token.revoked through the outbox.
func RevokeToken(ctx context.Context, db *mongo.Database, tokenID string) error {
	return token.New(tokenmongo.NewStore(mongox.NewDB(db), nil), nil).Revoke(ctx, tokenID) // revoking reads no roles
}
