// Command identity-admin administers identity's database directly:
//
//	identity-admin bootstrap -org-title "Acme" -name "Ada" -email ada@acme.test -role admin [-org ORGID]
//	identity-admin revoke-token -id TOKENID
//
// It reads MONGO_URI and IDENTITY_DB. bootstrap prints the organization id,
// the user id, the token id and the API token, which is shown only this once.
// The events of the changes are published by the running service's relay.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/docspub/platform/libs/config"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/identity"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

type dbConfig struct {
	MongoURI string `env:"MONGO_URI, default=mongodb://127.0.0.1:27017"`
	Database string `env:"IDENTITY_DB, default=identity"`
}

const usage = `usage:
  identity-admin bootstrap -org-title TITLE -name NAME -email EMAIL -role ROLE [-org ORGID]
  identity-admin revoke-token -id TOKENID`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "identity-admin:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, out io.Writer) error {
	if len(args) == 0 {
		return errors.New(usage)
	}
	var cfg dbConfig
	if err := config.Load(ctx, &cfg); err != nil {
		return err
	}
	switch args[0] {
	case "bootstrap":
		fs := flag.NewFlagSet("bootstrap", flag.ContinueOnError)
		org := fs.String("org", "", "existing organization id (default: create one)")
		title := fs.String("org-title", "", "title of the organization to create")
		name := fs.String("name", "", "display name of the user")
		email := fs.String("email", "", "e-mail of the user (an existing user with it is reused)")
		role := fs.String("role", "admin", "role of the user in the organization")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		return withDB(ctx, cfg, func(ctx context.Context, db *mongo.Database) error {
			r, err := identity.Bootstrap(ctx, db, identity.BootstrapInput{
				OrganizationID: *org, OrganizationTitle: *title, UserDisplayName: *name, UserEmail: *email, Role: roles.Role(*role),
			})
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "organization: %s\nuser: %s\ntoken id: %s\ntoken: %s\n(the token is shown only once)\n",
				r.OrganizationID, r.UserID, r.TokenID, r.Token)
			return nil
		})
	case "revoke-token":
		fs := flag.NewFlagSet("revoke-token", flag.ContinueOnError)
		id := fs.String("id", "", "id of the token to revoke")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if *id == "" {
			return errors.New("revoke-token: -id is required")
		}
		return withDB(ctx, cfg, func(ctx context.Context, db *mongo.Database) error {
			if err := identity.RevokeToken(ctx, db, *id); err != nil {
				return err
			}
			fmt.Fprintf(out, "token %s revoked\n", *id)
			return nil
		})
	default:
		return errors.New(usage)
	}
}

func withDB(ctx context.Context, cfg dbConfig, f func(context.Context, *mongo.Database) error) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	client, err := mongox.Connect(ctx, cfg.MongoURI)
	if err != nil {
		return err
	}
	defer func() { _ = client.Disconnect(context.Background()) }()
	return f(ctx, client.Database(cfg.Database))
}
