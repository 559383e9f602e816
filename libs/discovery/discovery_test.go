package discovery_test

import (
	"context"
	"errors"
	"net"
	"testing"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/config"
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

func TestConfigCheck(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  discovery.Config
		want []string
	}{
		{name: "zero is static", cfg: discovery.Config{}},
		{name: "static", cfg: discovery.Config{Mode: "static"}},
		{name: "consul", cfg: discovery.Config{Mode: "consul", ConsulAddr: "consul:8500", Advertise: "10.0.0.7:8082"}},
		{name: "consul without agent", cfg: discovery.Config{Mode: "consul"}, want: []string{"CONSUL_HTTP_ADDR is required"}},
		{name: "unknown mode", cfg: discovery.Config{Mode: "dns"}, want: []string{"DISCOVERY must be static or consul"}},
		{name: "advertise without port", cfg: discovery.Config{Advertise: "10.0.0.7"}, want: []string{"ADVERTISE_ADDR must be host:port"}},
		{name: "advertise port 0", cfg: discovery.Config{Advertise: "10.0.0.7:0"}, want: []string{"ADVERTISE_ADDR must be host:port"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p config.Problems
			tc.cfg.Check(&p)
			if diff := cmp.Diff([]string(p), tc.want); diff != "" {
				t.Errorf("Check (-got +want):\n%s", diff)
			}
		})
	}
}

func TestOpenStatic(t *testing.T) {
	reg, err := discovery.Open(discovery.Config{}, discovery.Static{"content": "http://c:2"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	if got, err := reg.Resolve(context.Background(), "content"); got != "http://c:2" || err != nil {
		t.Errorf("Resolve(content) = %q, %v", got, err)
	}
	deregister, err := reg.Register(context.Background(), discovery.Instance{Service: "sites", Addr: "10.0.0.1:8083"})
	if err != nil || deregister(context.Background()) != nil {
		t.Errorf("static Register = %v, want a no-op", err)
	}
}

func TestAdvertiseAddr(t *testing.T) {
	tcp := func(s string) net.Addr {
		a, err := net.ResolveTCPAddr("tcp", s)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	if got, err := discovery.AdvertiseAddr("content:8082", tcp("0.0.0.0:8082")); got != "content:8082" || err != nil {
		t.Errorf("explicit = %q, %v", got, err)
	}
	if got, err := discovery.AdvertiseAddr("", tcp("127.0.0.1:9000")); got != "127.0.0.1:9000" || err != nil {
		t.Errorf("specific listen host = %q, %v", got, err)
	}
	got, err := discovery.AdvertiseAddr("", tcp("0.0.0.0:8082"))
	if err != nil {
		t.Skipf("no non-loopback address on this machine: %v", err)
	}
	host, port, _ := net.SplitHostPort(got)
	if ip := net.ParseIP(host); ip == nil || ip.IsLoopback() || ip.IsUnspecified() || port != "8082" {
		t.Errorf("wildcard listen advertised as %q, want a non-loopback address with port 8082", got)
	}
}
