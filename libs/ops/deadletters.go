package ops

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/docspub/platform/libs/kafkax"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// deadLetters runs `deadletters list [--after ID] [--limit N]`,
// `show ID`, `replay ID...` and `drop ID...`.
func deadLetters(ctx context.Context, db *mongo.Database, k kafkax.Config, args []string, out io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: deadletters list|show|replay|drop", ErrUsage)
	}
	cluster, err := k.Cluster()
	if err != nil {
		return err
	}
	pub := kafkax.NewPublisher(cluster)
	defer pub.Close()
	dls := kafkax.NewDeadLetters(db, pub)
	switch cmd, ids := args[0], args[1:]; cmd {
	case "list":
		return listDeadLetters(ctx, dls, ids, out)
	case "show":
		if len(ids) != 1 {
			return fmt.Errorf("%w: deadletters show ID", ErrUsage)
		}
		dl, err := dls.Get(ctx, ids[0])
		if err != nil {
			return err
		}
		return writeIndented(out, shown(dl))
	case "replay", "drop":
		if len(ids) == 0 || len(ids) > kafkax.MaxDeadLetterPage {
			return fmt.Errorf("%w: deadletters %s ID... (1 to %d)", ErrUsage, cmd, kafkax.MaxDeadLetterPage)
		}
		act := map[string]func(context.Context, string) error{"replay": dls.Replay, "drop": dls.Drop}[cmd]
		for _, id := range ids {
			if err := act(ctx, id); err != nil {
				return err
			}
			fmt.Fprintf(out, "%sed %s\n", map[string]string{"replay": "replay", "drop": "dropp"}[cmd], id)
		}
		return nil
	default:
		return fmt.Errorf("%w: deadletters list|show|replay|drop", ErrUsage)
	}
}

// listDeadLetters prints one JSON line per letter, then the next page's
// command when the page was full.
func listDeadLetters(ctx context.Context, dls *kafkax.DeadLetters, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("deadletters list", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	after := fs.String("after", "", "list the letters after this id")
	limit := fs.Int("limit", 20, fmt.Sprintf("letters to list (at most %d)", kafkax.MaxDeadLetterPage))
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: deadletters list [--after ID] [--limit N]: %v", ErrUsage, err)
	}
	list, err := dls.List(ctx, *after, *limit)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(out)
	for _, dl := range list {
		if err := enc.Encode(shown(dl)); err != nil {
			return err
		}
	}
	return nil
}

// letter is a dead letter as the command shows it (the event as JSON).
type letter struct {
	ID       string          `json:"id"`
	Source   string          `json:"source"`
	Topic    string          `json:"topic"`
	Group    string          `json:"group,omitempty"`
	Document any             `json:"document,omitempty"`
	Error    string          `json:"error"`
	Attempts int             `json:"attempts"`
	Count    int             `json:"count"`
	First    string          `json:"firstFailedAt"`
	Last     string          `json:"lastFailedAt"`
	Event    json.RawMessage `json:"event,omitempty"`
}

func shown(dl kafkax.DeadLetter) letter {
	l := letter{ID: dl.ID, Source: dl.Source, Topic: dl.Topic, Group: dl.Group, Error: dl.Error, Attempts: dl.Attempts,
		Count: dl.Count, First: dl.FirstFailedAt.UTC().Format("2006-01-02T15:04:05.000Z"), Last: dl.LastFailedAt.UTC().Format("2006-01-02T15:04:05.000Z")}
	if !dl.Document.IsZero() {
		l.Document = dl.Document.String()
	}
	if len(dl.Event) > 0 {
		var ev kafkax.Event
		if bson.Unmarshal(dl.Event, &ev) == nil {
			l.Event, _ = json.Marshal(ev)
		}
	}
	return l
}

func writeIndented(out io.Writer, v any) error {
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
