package discovery_test

import (
	"context"
	"errors"
	"testing"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/discovery"
	"github.com/google/go-cmp/cmp"
)

func TestParseStatic(t *testing.T) {
	for _, tc := range []struct {
		name    string
		spec    string
		want    discovery.Static
		wantErr bool
	}{
		{name: "empty", spec: "", want: discovery.Static{}},
		{name: "two", spec: "identity=http://127.0.0.1:8081,content=https://content.internal:8443/",
			want: discovery.Static{"identity": "http://127.0.0.1:8081", "content": "https://content.internal:8443"}},
		{name: "spaces and empty parts", spec: " identity = http://127.0.0.1:8081 , ,",
			want: discovery.Static{"identity": "http://127.0.0.1:8081"}},
		{name: "path kept", spec: "sites=http://h:1/base/", want: discovery.Static{"sites": "http://h:1/base"}},
		{name: "no equals", spec: "identity", wantErr: true},
		{name: "not http", spec: "identity=ftp://h", wantErr: true},
		{name: "no host", spec: "identity=http://", wantErr: true},
		{name: "relative", spec: "identity=127.0.0.1:8081", wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := discovery.ParseStatic(tc.spec)
			if (err != nil) != tc.wantErr {
				t.Fatalf("ParseStatic(%q) error = %v, want error %v", tc.spec, err, tc.wantErr)
			}
			if diff := cmp.Diff(got, tc.want); diff != "" {
				t.Errorf("ParseStatic(%q) (-got +want):\n%s", tc.spec, diff)
			}
		})
	}
}

func TestStaticResolveAndString(t *testing.T) {
	s, err := discovery.ParseStatic("sites=http://s:3,identity=http://i:1")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if got, err := s.Resolve(ctx, "identity"); got != "http://i:1" || err != nil {
		t.Errorf("Resolve(identity) = %q, %v", got, err)
	}
	_, err = s.Resolve(ctx, "content")
	var e *apierr.Error
	if !errors.As(err, &e) || e.Status != 503 {
		t.Errorf("Resolve(content) = %v, want a 503", err)
	}
	if got, want := s.String(), "identity=http://i:1,sites=http://s:3"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	again, err := discovery.ParseStatic(s.String())
	if err != nil || !cmp.Equal(again, s) {
		t.Errorf("ParseStatic(String()) = %v, %v; want %v", again, err, s)
	}
}
