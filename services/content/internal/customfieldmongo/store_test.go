package customfieldmongo_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/services/content/internal/customfield"
	"github.com/docspub/platform/services/content/internal/customfieldmongo"
	"github.com/google/go-cmp/cmp"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

func TestMain(m *testing.M) { mongotest.Main(m) }

func newStore(t *testing.T) (*customfieldmongo.Store, *mongo.Database) {
	t.Helper()
	db := mongotest.Database(t)
	if err := customfieldmongo.EnsureIndexes(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	return customfieldmongo.NewStore(mongox.NewDB(db), nil), db
}

func field(org, id, name string) customfield.Field {
	t := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	return customfield.Field{ID: id, Organization: org, Name: name, Type: customfield.Text, CreatedAt: t, UpdatedAt: t}
}

func ev(typ string) kafkax.Event { return kafkax.NewEvent(typ, "o1", "s", nil) }

// outbox returns the types of the pending events of a document.
func outbox(t *testing.T, db *mongo.Database, coll, id string) []string {
	t.Helper()
	var d struct {
		Outbox []kafkax.Event `bson:"_outbox"`
	}
	if err := db.Collection(coll).FindOne(context.Background(), bson.M{"_id": id}).Decode(&d); err != nil {
		t.Fatalf("load %s %s: %v", coll, id, err)
	}
	var out []string
	for _, e := range d.Outbox {
		out = append(out, e.Type)
	}
	return out
}

func TestFieldsUniqueByOrganizationAndName(t *testing.T) {
	ctx := context.Background()
	s, db := newStore(t)
	if err := s.InsertField(ctx, field("o1", "f1", "audience"), ev(contentapi.CustomFieldCreated)); err != nil {
		t.Fatal(err)
	}
	if err := s.InsertField(ctx, field("o2", "f2", "audience"), ev(contentapi.CustomFieldCreated)); err != nil {
		t.Fatalf("same name in another organization: %v", err)
	}
	if err := s.InsertField(ctx, field("o1", "f3", "audience"), ev(contentapi.CustomFieldCreated)); !errors.Is(err, apierr.ErrConflict) {
		t.Fatalf("duplicate name: %v, want a conflict", err)
	}
	f, err := s.Field(ctx, "o1", "audience")
	if err != nil || f.ID != "f1" {
		t.Fatalf("Field = %+v, %v", f, err)
	}
	if got, want := outbox(t, db, customfieldmongo.Fields, "f1"), []string{contentapi.CustomFieldCreated}; !cmp.Equal(got, want) {
		t.Errorf("outbox %v, want %v", got, want)
	}

	// Removing frees the name; the removed definition is not readable.
	if err := s.RemoveField(ctx, f, ev(contentapi.CustomFieldDeleted)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Field(ctx, "o1", "audience"); !errors.Is(err, apierr.ErrNotFound) {
		t.Fatalf("removed field: %v, want not found", err)
	}
	if got, want := outbox(t, db, customfieldmongo.Fields, "f1"), []string{contentapi.CustomFieldCreated, contentapi.CustomFieldDeleted}; !cmp.Equal(got, want) {
		t.Errorf("outbox %v, want %v", got, want)
	}
	if err := s.InsertField(ctx, field("o1", "f4", "audience"), ev(contentapi.CustomFieldCreated)); err != nil {
		t.Fatalf("reuse a removed name: %v", err)
	}
}

func TestFieldsPageByName(t *testing.T) {
	ctx := context.Background()
	s, _ := newStore(t)
	for i, name := range []string{"delta", "alpha", "charlie", "bravo"} {
		if err := s.InsertField(ctx, field("o1", string(rune('a'+i)), name), ev(contentapi.CustomFieldCreated)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.InsertField(ctx, field("o2", "x", "aaa"), ev(contentapi.CustomFieldCreated)); err != nil {
		t.Fatal(err)
	}
	names := func(fs []customfield.Field) []string {
		var out []string
		for _, f := range fs {
			out = append(out, f.Name)
		}
		return out
	}
	first, n, err := s.Fields(ctx, "o1", customfield.Page{Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"alpha", "bravo"}, names(first)); diff != "" || n != 4 {
		t.Fatalf("first page (-want +got) %s, count %d", diff, n)
	}
	last := first[len(first)-1]
	rest, n, err := s.Fields(ctx, "o1", customfield.Page{AfterName: last.Name, AfterID: last.ID, Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"charlie", "delta"}, names(rest)); diff != "" || n != 4 {
		t.Fatalf("second page (-want +got) %s, count %d", diff, n)
	}
}

func TestUpdateField(t *testing.T) {
	ctx := context.Background()
	s, db := newStore(t)
	f := field("o1", "f1", "tier")
	f.Type = customfield.Select
	f.Options = []string{"a", "b"}
	if err := s.InsertField(ctx, f, ev(contentapi.CustomFieldCreated)); err != nil {
		t.Fatal(err)
	}
	want := f
	want.Title, want.Options, want.UpdatedAt = "Tier", []string{"b", "c"}, f.UpdatedAt.Add(time.Hour)
	updated, err := s.UpdateField(ctx, "f1", func(f *customfield.Field) ([]kafkax.Event, error) {
		f.Title, f.Options, f.UpdatedAt = want.Title, want.Options, want.UpdatedAt
		return []kafkax.Event{ev(contentapi.CustomFieldUpdated)}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Field(ctx, "o1", "tier")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stored field (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, updated); diff != "" {
		t.Errorf("returned field (-want +got):\n%s", diff)
	}
	if got, want := outbox(t, db, customfieldmongo.Fields, "f1"), []string{contentapi.CustomFieldCreated, contentapi.CustomFieldUpdated}; !cmp.Equal(got, want) {
		t.Errorf("outbox %v, want %v", got, want)
	}
	// A change that refuses writes nothing; a removed field is not found.
	refused := apierr.Invalid("title", "bad")
	if _, err := s.UpdateField(ctx, "f1", func(f *customfield.Field) ([]kafkax.Event, error) {
		f.Title = "Refused"
		return nil, refused
	}); !errors.Is(err, refused) {
		t.Errorf("refused change = %v, want %v", err, refused)
	}
	if got, _ := s.Field(ctx, "o1", "tier"); got.Title != "Tier" {
		t.Errorf("title %q after a refused change", got.Title)
	}
	if err := s.RemoveField(ctx, got, ev(contentapi.CustomFieldDeleted)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.UpdateField(ctx, "f1", func(*customfield.Field) ([]kafkax.Event, error) { return nil, nil }); !errors.Is(err, apierr.ErrNotFound) {
		t.Errorf("update of a removed field = %v, want not found", err)
	}
}

// setValues writes values as the service does.
func setValues(ctx context.Context, s *customfieldmongo.Store, org, space string, set customfield.Values, clear []string, e kafkax.Event) error {
	return s.UpdateSpaceValues(ctx, space, func(sv *customfield.SpaceValues) ([]kafkax.Event, error) {
		if sv.Organization != org {
			sv.Organization, sv.Values = org, customfield.Values{}
		}
		for k, v := range set {
			sv.Values[k] = v
		}
		for _, k := range clear {
			delete(sv.Values, k)
		}
		return []kafkax.Event{e}, nil
	})
}

// A space's values are created by the first write; one that raced it (it
// read no values) is applied to what that write stored, not over it.
func TestSpaceValuesFirstWritesRace(t *testing.T) {
	ctx := context.Background()
	s, db := newStore(t)
	tries := 0
	err := s.UpdateSpaceValues(ctx, "s1", func(sv *customfield.SpaceValues) ([]kafkax.Event, error) {
		tries++
		if tries == 1 {
			if err := setValues(ctx, s, "o1", "s1", customfield.Values{"a": "1"}, nil, ev(contentapi.CustomFieldValuesUpdated)); err != nil {
				t.Fatalf("racing write: %v", err)
			}
		}
		sv.Organization = "o1"
		sv.Values["b"] = "2"
		return []kafkax.Event{ev(contentapi.CustomFieldValuesUpdated)}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.SpaceValues(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(customfield.Values{"a": "1", "b": "2"}, got.Values); diff != "" {
		t.Errorf("values (-want +got):\n%s", diff)
	}
	if got := outbox(t, db, customfieldmongo.SpaceValues, "s1"); len(got) != 2 {
		t.Errorf("outbox %v, want the events of both writes", got)
	}
}

func TestSpaceValues(t *testing.T) {
	ctx := context.Background()
	s, db := newStore(t)

	none, err := s.SpaceValues(ctx, "s1")
	if err != nil || len(none.Values) != 0 || none.Organization != "" {
		t.Fatalf("space without values: %+v, %v", none, err)
	}

	set := customfield.Values{"t": "hello", "n": 4.5, "b": false, "m": []string{"x", "y"}, "sel": "x"}
	if err := setValues(ctx, s, "o1", "s1", set, nil, ev(contentapi.CustomFieldValuesUpdated)); err != nil {
		t.Fatal(err)
	}
	if err := setValues(ctx, s, "o1", "s1", customfield.Values{"n": 7.0}, []string{"sel", "b"}, ev(contentapi.CustomFieldValuesUpdated)); err != nil {
		t.Fatal(err)
	}
	got, err := s.SpaceValues(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	want := customfield.SpaceValues{Space: "s1", Organization: "o1",
		Values: customfield.Values{"t": "hello", "n": 7.0, "m": []string{"x", "y"}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("values (-want +got):\n%s", diff)
	}
	if got, want := outbox(t, db, customfieldmongo.SpaceValues, "s1"), []string{contentapi.CustomFieldValuesUpdated, contentapi.CustomFieldValuesUpdated}; !cmp.Equal(got, want) {
		t.Errorf("outbox %v, want %v", got, want)
	}

	// Values written in another organization are replaced, not merged.
	if err := setValues(ctx, s, "o2", "s1", customfield.Values{"z": "new"}, nil, ev(contentapi.CustomFieldValuesUpdated)); err != nil {
		t.Fatal(err)
	}
	got, err = s.SpaceValues(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	want = customfield.SpaceValues{Space: "s1", Organization: "o2", Values: customfield.Values{"z": "new"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("values after transfer (-want +got):\n%s", diff)
	}

	if err := s.DeleteSpace(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if n, _ := db.Collection(customfieldmongo.SpaceValues).CountDocuments(ctx, bson.M{}); n != 0 {
		t.Errorf("%d documents left after DeleteSpace", n)
	}
}

func TestClearValues(t *testing.T) {
	ctx := context.Background()
	s, _ := newStore(t)
	for _, w := range []struct{ org, space string }{{"o1", "s1"}, {"o1", "s2"}, {"o2", "s3"}} {
		if err := setValues(ctx, s, w.org, w.space, customfield.Values{"gone": "x", "kept": "y"}, nil, ev(contentapi.CustomFieldValuesUpdated)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.ClearValues(ctx, "o1", "gone"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		space string
		want  customfield.Values
	}{
		{"s1", customfield.Values{"kept": "y"}},
		{"s2", customfield.Values{"kept": "y"}},
		{"s3", customfield.Values{"gone": "x", "kept": "y"}}, // another organization's field
	} {
		t.Run(tc.space, func(t *testing.T) {
			got, err := s.SpaceValues(ctx, tc.space)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got.Values); diff != "" {
				t.Errorf("values (-want +got):\n%s", diff)
			}
		})
	}
}
