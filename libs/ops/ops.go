// Package ops is the operator's commands every service binary carries
// beside serving: `<service> deadletters list|show|replay|drop` on the
// events its relay or consumers gave up on, and `<service> backup DIR`,
// `<service> restore DIR [--replace]` and `<service> check DIR` of its
// database (and content's blob store). They read the service's own
// environment (MONGO_URI, its database's variable, KAFKA_*, BLOB_*).
package ops

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/docspub/platform/libs/blob"
	"github.com/docspub/platform/libs/config"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/mongox"
	"github.com/sethvargo/go-envconfig"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// Service says which database is the service's and whether it has a
// blob store.
type Service struct {
	Name string
	// DatabaseVar and DatabaseDefault are the environment variable naming
	// its database ("CONTENT_DB") and its default ("content").
	DatabaseVar, DatabaseDefault string
	// Blobs: the service keeps files in the blob store (BLOB_URL), which
	// its backups hold.
	Blobs bool
}

// Config is what the commands read from the environment.
type Config struct {
	MongoURI            string `env:"MONGO_URI, default=mongodb://127.0.0.1:27017"`
	Kafka               kafkax.Config
	BlobURL             string `env:"BLOB_URL"`
	BlobAccessKeyID     string `env:"BLOB_ACCESS_KEY_ID" secret:"true"`
	BlobSecretAccessKey string `env:"BLOB_SECRET_ACCESS_KEY" secret:"true"`
}

// Commands are the commands Main runs.
var Commands = []string{"deadletters", "backup", "restore", "check"}

// Main runs the operator command of os.Args when there is one, and exits
// (1 when it failed); it returns, doing nothing, when os.Args names none.
func Main(s Service) {
	if len(os.Args) < 2 || !isCommand(os.Args[1]) {
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	err := Run(ctx, s, envconfig.OsLookuper(), os.Args[1:], os.Stdout)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, s.Name+" "+os.Args[1]+":", err)
		os.Exit(1)
	}
	os.Exit(0)
}

func isCommand(name string) bool {
	for _, c := range Commands {
		if c == name {
			return true
		}
	}
	return false
}

// ErrUsage is a command line Run does not understand.
var ErrUsage = errors.New("usage")

// Run runs one command (args[0] is its name) with the environment env,
// writing its output to out.
func Run(ctx context.Context, s Service, env envconfig.Lookuper, args []string, out io.Writer) error {
	var cfg Config
	if err := config.LoadFrom(ctx, &cfg, env); err != nil {
		return err
	}
	database := s.DatabaseDefault
	if v, ok := env.Lookup(s.DatabaseVar); ok && v != "" {
		database = v
	}
	client, err := mongox.Connect(ctx, cfg.MongoURI)
	if err != nil {
		return err
	}
	defer func() { _ = client.Disconnect(context.WithoutCancel(ctx)) }()
	db := client.Database(database)
	switch args[0] {
	case "deadletters":
		return deadLetters(ctx, db, cfg.Kafka, args[1:], out)
	default:
		return backups(ctx, s, db, cfg, args, out)
	}
}

// openBlobs opens the service's blob store (nil for a service without).
func openBlobs(ctx context.Context, s Service, cfg Config) (*blob.Store, error) {
	if !s.Blobs {
		return nil, nil
	}
	if cfg.BlobURL == "" {
		return nil, errors.New("BLOB_URL is required: the service's files are part of its backup")
	}
	return blob.Open(ctx, cfg.BlobURL, blob.Options{AccessKeyID: cfg.BlobAccessKeyID, SecretAccessKey: cfg.BlobSecretAccessKey})
}

// backups runs backup, restore and check.
func backups(ctx context.Context, s Service, db *mongo.Database, cfg Config, args []string, out io.Writer) error {
	cmd, rest := args[0], args[1:]
	replace := len(rest) == 2 && rest[1] == "--replace" && cmd == "restore"
	if len(rest) != 1 && !replace {
		return fmt.Errorf("%w: %s %s DIR%s", ErrUsage, s.Name, cmd, map[bool]string{true: " [--replace]"}[cmd == "restore"])
	}
	blobs, err := openBlobs(ctx, s, cfg)
	if err != nil {
		return err
	}
	if blobs != nil {
		defer blobs.Close()
	}
	dir := rest[0]
	var problems []string
	switch cmd {
	case "backup":
		m, err := Backup(ctx, s.Name, db, blobs, dir)
		if err != nil {
			return err
		}
		return writeIndented(out, m)
	case "restore":
		problems, err = Restore(ctx, s.Name, db, blobs, dir, replace)
	default:
		problems, err = Check(ctx, s.Name, db, blobs, dir)
	}
	if err != nil {
		return err
	}
	for _, p := range problems {
		fmt.Fprintln(out, p)
	}
	if len(problems) > 0 {
		return fmt.Errorf("%d differences from the backup", len(problems))
	}
	fmt.Fprintln(out, "the database matches the backup")
	return nil
}
