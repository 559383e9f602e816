package sharelink

import (
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/nullable"
	"github.com/google/go-cmp/cmp"
)

// checkField fails unless err is nil when field is "", or a problem whose
// message starts with field otherwise.
func checkField(t *testing.T, err error, field string) {
	t.Helper()
	switch {
	case field == "" && err != nil:
		t.Errorf("unexpected error: %v", err)
	case field != "" && err == nil:
		t.Errorf("no error, want a problem with %s", field)
	case field != "" && !strings.HasPrefix(err.Error(), field):
		t.Errorf("error %q, want a problem with %s", err, field)
	}
}

func TestNewLinkValidate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		in    NewLink
		field string // "" = valid
	}{
		{"name", NewLink{Name: nullable.Of("Reviewers")}, ""},
		{"empty name", NewLink{Name: nullable.Of("")}, ""},
		{"50 characters", NewLink{Name: nullable.Of(strings.Repeat("é", 50))}, ""},
		{"51 characters", NewLink{Name: nullable.Of(strings.Repeat("a", 51))}, "name:"},
		{"missing name", NewLink{}, "name:"},
		{"null name", NewLink{Name: nullable.Field[string]{Set: true, Null: true}}, "name:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			checkField(t, tc.in.validate(), tc.field)
		})
	}
}

func TestPatchApply(t *testing.T) {
	t.Parallel()
	link := Link{ID: "l1", Site: "s1", Name: "Reviewers", Active: true, Key: "k"}
	with := func(name string, active bool) Link {
		l := link
		l.Name, l.Active = name, active
		return l
	}
	str := func(s string) *string { return &s }
	boolean := func(b bool) *bool { return &b }
	for _, tc := range []struct {
		name    string
		patch   Patch
		want    Link
		change  Change
		problem string // "" = valid
	}{
		{"rename", Patch{Name: nullable.Of("Partners")}, with("Partners", true), Change{Name: str("Partners")}, ""},
		{"deactivate", Patch{Active: nullable.Of(false)}, with("Reviewers", false), Change{Active: boolean(false)}, ""},
		{"both", Patch{Name: nullable.Of(""), Active: nullable.Of(false)}, with("", false), Change{Name: str(""), Active: boolean(false)}, ""},
		{"same values", Patch{Name: nullable.Of("Reviewers"), Active: nullable.Of(true)}, link, Change{}, ""},
		{"nothing", Patch{}, link, Change{}, "the body"},
		{"name too long", Patch{Name: nullable.Of(strings.Repeat("a", 51))}, link, Change{}, "name:"},
		{"null name", Patch{Name: nullable.Field[string]{Set: true, Null: true}}, link, Change{}, "name:"},
		{"null active", Patch{Active: nullable.Field[bool]{Set: true, Null: true}}, link, Change{}, "active:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := link
			ch, err := tc.patch.apply(&got)
			checkField(t, err, tc.problem)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("link (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.change, ch); diff != "" {
				t.Errorf("change (-want +got):\n%s", diff)
			}
			if ch.changed() != (tc.change.Name != nil || tc.change.Active != nil) {
				t.Errorf("changed() = %v", ch.changed())
			}
		})
	}
}

func TestNewKey(t *testing.T) {
	t.Parallel()
	a, b := NewKey(), NewKey()
	if len(a) != KeyLength || len(b) != KeyLength || a == b {
		t.Fatalf("keys %q and %q, want two different %d-character keys", a, b, KeyLength)
	}
	if HashKey(a) == HashKey(b) || len(HashKey(a)) != 64 || HashKey(a) != HashKey(a) {
		t.Errorf("hashes %q %q", HashKey(a), HashKey(b))
	}
}

func TestRender(t *testing.T) {
	t.Parallel()
	at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	l := Link{ID: "l1", Organization: "o1", Site: "s1", Name: "n", Active: true, Key: "KEY", KeyHash: HashKey("KEY"), CreatedAt: at}
	for _, base := range []string{"https://sites.test", "https://sites.test/"} {
		got := Render(URLs{Published: base}, l)
		want := View{Object: "share-link", ID: "l1", CreatedAt: at, Name: "n", Active: true,
			URLs: LinkURLs{Published: "https://sites.test/o1/s1?shareKey=KEY"}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Render with base %q (-want +got):\n%s", base, diff)
		}
	}
	ev := eventData(l)
	if ev.URLs.Published != "" || ev.Site != "s1" || ev.ID != "l1" {
		t.Errorf("event data %+v, want the link without its key", ev)
	}
}
