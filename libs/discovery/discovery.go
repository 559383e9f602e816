// Package discovery finds the base URL of a platform service and announces
// this instance. Static reads a fixed map (environment, the local runner, or
// Kubernetes Service names); Consul resolves healthy instances with blocking
// queries and registers this one with an HTTP health check. Config chooses
// one of them (DISCOVERY=static|consul) and Open builds it.
package discovery

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"sort"
	"strings"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/config"
)

// Resolver returns the base URL ("http://host:port") of a service.
type Resolver interface {
	Resolve(ctx context.Context, service string) (string, error)
}

// Registry resolves services and announces this instance.
type Registry interface {
	Resolver
	// Register announces the instance and returns what withdraws it.
	Register(ctx context.Context, in Instance) (deregister func(context.Context) error, err error)
	// Close stops the registry's background work.
	Close()
}

// Modes of discovery.
const (
	ModeStatic = "static" // addresses from configuration (Kubernetes Service names work too)
	ModeConsul = "consul" // healthy instances from Consul; instances register themselves
)

// Config chooses and configures discovery; every service and the gateway
// embed it in their configuration.
type Config struct {
	// Mode is static (the default; "" too) or consul.
	Mode string `env:"DISCOVERY, default=static"`
	// ConsulAddr is the Consul agent's HTTP address (host:port or URL).
	ConsulAddr string `env:"CONSUL_HTTP_ADDR, default=127.0.0.1:8500"`
	// ConsulToken is the ACL token for the agent, when ACLs are on.
	ConsulToken string `env:"CONSUL_HTTP_TOKEN" secret:"true"`
	// Advertise is the host:port other instances reach this one at; empty
	// means the listen address, with an unspecified host (":8082",
	// "0.0.0.0:8082") replaced by this machine's first non-loopback address.
	Advertise string `env:"ADVERTISE_ADDR"`
}

// Check records the configuration's problems in p.
func (c Config) Check(p *config.Problems) {
	switch c.Mode {
	case "", ModeStatic:
	case ModeConsul:
		p.Require("CONSUL_HTTP_ADDR", c.ConsulAddr)
	default:
		p.Addf("DISCOVERY must be %s or %s", ModeStatic, ModeConsul)
	}
	if c.Advertise != "" {
		if _, port, err := net.SplitHostPort(c.Advertise); err != nil || port == "" || port == "0" {
			p.Addf("ADVERTISE_ADDR must be host:port")
		}
	}
}

// Open returns the registry cfg chooses: static (the given map; registering
// does nothing) or Consul.
func Open(cfg Config, static Static, log *slog.Logger) (Registry, error) {
	if cfg.Mode == ModeConsul {
		return NewConsul(cfg, log)
	}
	if static == nil {
		static = Static{}
	}
	return static, nil
}

// Instance is one running instance of a service.
type Instance struct {
	// Service is the service's name ("content").
	Service string
	// Addr is the host:port others reach it at.
	Addr string
}

// ID is the instance's registration id: unique per service and address.
func (in Instance) ID() string { return in.Service + "-" + in.Addr }

// Static resolves from a fixed map of service name to base URL.
type Static map[string]string

// Resolve returns the configured URL or a 503 error when the service is unknown.
func (s Static) Resolve(_ context.Context, service string) (string, error) {
	u, ok := s[service]
	if !ok || u == "" {
		return "", apierr.New(503, "service %s is not available", service)
	}
	return u, nil
}

// Register does nothing: static addresses are configured, not announced.
func (s Static) Register(context.Context, Instance) (func(context.Context) error, error) {
	return func(context.Context) error { return nil }, nil
}

// Close does nothing.
func (s Static) Close() {}

// ParseStatic parses "identity=http://127.0.0.1:8081,content=http://..." .
func ParseStatic(spec string) (Static, error) {
	s := Static{}
	for _, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, raw, ok := strings.Cut(part, "=")
		if !ok {
			return nil, fmt.Errorf("upstream %q: want name=url", part)
		}
		u, err := url.Parse(strings.TrimSpace(raw))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("upstream %q: want an http(s) URL", part)
		}
		s[strings.TrimSpace(name)] = strings.TrimRight(u.String(), "/")
	}
	return s, nil
}

// String formats the map as ParseStatic reads it, sorted by name.
func (s Static) String() string {
	names := make([]string, 0, len(s))
	for n := range s {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + "=" + s[n]
	}
	return strings.Join(parts, ",")
}

// AdvertiseAddr returns the address to announce for an instance listening on
// listen: advertise when set, else listen with an unspecified host replaced
// by this machine's first non-loopback address.
func AdvertiseAddr(advertise string, listen net.Addr) (string, error) {
	if advertise != "" {
		return advertise, nil
	}
	host, port, err := net.SplitHostPort(listen.String())
	if err != nil {
		return "", fmt.Errorf("listen address %s: %w", listen, err)
	}
	if ip := net.ParseIP(host); ip != nil && !ip.IsUnspecified() {
		return listen.String(), nil
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return "", fmt.Errorf("interface addresses: %w", err)
	}
	var v6 string
	for _, a := range addrs {
		n, ok := a.(*net.IPNet)
		if !ok || n.IP.IsLoopback() || n.IP.IsLinkLocalUnicast() {
			continue
		}
		if n.IP.To4() != nil {
			return net.JoinHostPort(n.IP.String(), port), nil
		}
		if v6 == "" {
			v6 = net.JoinHostPort(n.IP.String(), port)
		}
	}
	if v6 != "" {
		return v6, nil
	}
	return "", fmt.Errorf("no non-loopback address to advertise for %s: set ADVERTISE_ADDR", listen)
}
