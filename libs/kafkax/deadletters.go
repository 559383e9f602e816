package kafkax

import (
	"context"
	"errors"
	"fmt"

	"github.com/segmentio/kafka-go"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// HeaderReplayGroup, on a replayed consumer dead letter, names the one
// consumer group it is for: consumers of other groups skip it (they
// handled the event the first time; their processed-event records may be
// pruned since). A consumer of a release before replays ignores the header
// and skips the event as already processed while its record lasts.
const HeaderReplayGroup = "replay-group"

// MaxDeadLetterPage bounds one DeadLetters.List.
const MaxDeadLetterPage = 100

// ErrNoDeadLetter is a dead letter that does not exist (or was replayed
// or dropped meanwhile).
var ErrNoDeadLetter = errors.New("no such dead letter")

// DeadLetters looks at and acts on the dead letters of one database: the
// operator's command (`<service> deadletters`).
type DeadLetters struct {
	coll *mongo.Collection
	pub  *Publisher
}

// NewDeadLetters returns the dead letters of db; pub publishes replays.
func NewDeadLetters(db *mongo.Database, pub *Publisher) *DeadLetters {
	return &DeadLetters{coll: db.Collection(DeadLetterCollection), pub: pub}
}

// List returns up to limit dead letters (at most MaxDeadLetterPage) after
// the id after, in id order, without their events and documents (Get
// shows one whole).
func (d *DeadLetters) List(ctx context.Context, after string, limit int) ([]DeadLetter, error) {
	limit = min(max(limit, 1), MaxDeadLetterPage)
	filter := bson.M{}
	if after != "" {
		filter["_id"] = bson.M{"$gt": after}
	}
	cur, err := d.coll.Find(ctx, filter, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}).
		SetLimit(int64(limit)).SetProjection(bson.M{"event": 0, "document": 0}))
	if err != nil {
		return nil, fmt.Errorf("list dead letters: %w", err)
	}
	out := []DeadLetter{}
	if err := cur.All(ctx, &out); err != nil {
		return nil, fmt.Errorf("list dead letters: %w", err)
	}
	return out, nil
}

// Get returns one dead letter whole.
func (d *DeadLetters) Get(ctx context.Context, id string) (DeadLetter, error) {
	var dl DeadLetter
	err := d.coll.FindOne(ctx, bson.M{"_id": id}).Decode(&dl)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return DeadLetter{}, fmt.Errorf("%w: %s", ErrNoDeadLetter, id)
	}
	if err != nil {
		return DeadLetter{}, fmt.Errorf("read dead letter %s: %w", id, err)
	}
	return dl, nil
}

// Drop deletes a dead letter: its event is given up for good.
func (d *DeadLetters) Drop(ctx context.Context, id string) error {
	res, err := d.coll.DeleteOne(ctx, bson.M{"_id": id})
	if err != nil {
		return fmt.Errorf("drop dead letter %s: %w", id, err)
	}
	if res.DeletedCount == 0 {
		return fmt.Errorf("%w: %s", ErrNoDeadLetter, id)
	}
	return nil
}

// Replay publishes a dead letter's event again to its topic (once its
// cause is mended: a handler fixed, a broker's size limit raised) and
// then deletes the letter. A consumer's letter is for its group only
// (HeaderReplayGroup); a relay's is a first publication, for every group.
// The letter is deleted only as it was read: buried again meanwhile (the
// replay refused again), it stays with its count raised.
func (d *DeadLetters) Replay(ctx context.Context, id string) error {
	dl, err := d.Get(ctx, id)
	if err != nil {
		return err
	}
	var ev Event
	if err := bson.Unmarshal(dl.Event, &ev); err != nil || ev.ID == "" {
		return fmt.Errorf("dead letter %s holds no event: %v", id, err)
	}
	o, err := encode(dl.Topic, ev)
	if err != nil {
		return err
	}
	if dl.Source == SourceConsumer {
		o.msg.Headers = append(o.msg.Headers, kafka.Header{Key: HeaderReplayGroup, Value: []byte(dl.Group)})
	}
	if err := d.pub.write(ctx, dl.Topic, []outgoing{o}); err != nil {
		return fmt.Errorf("replay dead letter %s: %w", id, err)
	}
	if _, err := d.coll.DeleteOne(ctx, bson.M{"_id": id, "count": dl.Count}); err != nil {
		return fmt.Errorf("replayed dead letter %s, but deleting it: %w", id, err)
	}
	return nil
}

// replayFor is the group a replayed event is for ("" for any event that
// is not a replay).
func replayFor(m kafka.Message) string {
	for _, h := range m.Headers {
		if h.Key == HeaderReplayGroup {
			return string(h.Value)
		}
	}
	return ""
}
