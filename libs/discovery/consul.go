package discovery

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/hashicorp/consul/api"
)

// Timings of the Consul registry.
const (
	// CheckInterval is how often Consul probes an instance's /readyz.
	CheckInterval = 5 * time.Second
	// checkTimeout bounds one probe.
	checkTimeout = 2 * time.Second
	// deregisterAfter is how long an instance may stay critical before
	// Consul removes it (a crashed process never deregisters itself).
	deregisterAfter = time.Minute
	// blockFor is how long one blocking query waits for a change.
	blockFor = 5 * time.Minute
	// firstAnswer bounds the wait for a service's first instance list.
	firstAnswer = 5 * time.Second
	// maxBackoff bounds the pause between failed queries.
	maxBackoff = 5 * time.Second
)

// Consul resolves healthy instances from a Consul agent and registers this
// one. Each service asked for is watched by one blocking query whose answers
// are cached, so Resolve costs a map lookup; instances are taken in turn.
type Consul struct {
	client   *api.Client
	log      *slog.Logger
	interval time.Duration

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	watches map[string]*watch
}

// ConsulOption changes a Consul registry.
type ConsulOption func(*Consul)

// WithCheckInterval sets how often Consul probes registered instances
// (tests make it short).
func WithCheckInterval(d time.Duration) ConsulOption { return func(c *Consul) { c.interval = d } }

// NewConsul returns a registry talking to the agent at cfg.ConsulAddr.
func NewConsul(cfg Config, log *slog.Logger, opts ...ConsulOption) (*Consul, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ac := api.DefaultNonPooledConfig()
	ac.Address = cfg.ConsulAddr
	ac.Token = cfg.ConsulToken
	client, err := api.NewClient(ac)
	if err != nil {
		return nil, fmt.Errorf("consul client: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &Consul{client: client, log: log, interval: CheckInterval, ctx: ctx, cancel: cancel, watches: map[string]*watch{}}
	for _, o := range opts {
		o(c)
	}
	return c, nil
}

// Resolve returns the base URL of one healthy instance of service, the next
// one in turn on each call. No healthy instance (or no answer from Consul
// yet) is a 503.
func (c *Consul) Resolve(ctx context.Context, service string) (string, error) {
	w := c.watch(service)
	select {
	case <-w.ready:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	urls := *w.urls.Load()
	if len(urls) == 0 {
		return "", apierr.Unavailable(time.Second, "service %s has no healthy instance", service)
	}
	return urls[int(w.next.Add(1)%uint64(len(urls)))], nil
}

// Register announces in with an HTTP check on its /readyz; the returned
// function deregisters it.
func (c *Consul) Register(ctx context.Context, in Instance) (func(context.Context) error, error) {
	host, portText, err := net.SplitHostPort(in.Addr)
	if err != nil {
		return nil, fmt.Errorf("register %s: address %q: %w", in.Service, in.Addr, err)
	}
	port, err := strconv.Atoi(portText)
	if err != nil {
		return nil, fmt.Errorf("register %s: port %q: %w", in.Service, portText, err)
	}
	reg := &api.AgentServiceRegistration{
		ID:      in.ID(),
		Name:    in.Service,
		Address: host,
		Port:    port,
		Check: &api.AgentServiceCheck{
			CheckID:                        in.ID() + "-readyz",
			Name:                           in.Service + " readiness",
			HTTP:                           "http://" + in.Addr + "/readyz",
			Method:                         http.MethodGet,
			Interval:                       c.interval.String(),
			Timeout:                        min(checkTimeout, c.interval).String(),
			DeregisterCriticalServiceAfter: deregisterAfter.String(),
		},
	}
	if err := c.client.Agent().ServiceRegisterOpts(reg, api.ServiceRegisterOpts{ReplaceExistingChecks: true}.WithContext(ctx)); err != nil {
		return nil, fmt.Errorf("register %s in consul: %w", in.ID(), err)
	}
	c.log.InfoContext(ctx, "registered in consul", "service", in.Service, "id", in.ID(), "addr", in.Addr)
	return func(ctx context.Context) error {
		if err := c.client.Agent().ServiceDeregisterOpts(in.ID(), (&api.QueryOptions{}).WithContext(ctx)); err != nil {
			return fmt.Errorf("deregister %s from consul: %w", in.ID(), err)
		}
		c.log.InfoContext(ctx, "deregistered from consul", "id", in.ID())
		return nil
	}, nil
}

// Close stops every watch.
func (c *Consul) Close() {
	c.cancel()
	c.wg.Wait()
}

// watch is the cached instance list of one service, kept current by a
// blocking query.
type watch struct {
	ready chan struct{} // closed once the first answer (or failure) is in
	urls  atomic.Pointer[[]string]
	next  atomic.Uint64
}

// watch returns the watch of service, starting it on first use.
func (c *Consul) watch(service string) *watch {
	c.mu.Lock()
	defer c.mu.Unlock()
	if w, ok := c.watches[service]; ok {
		return w
	}
	w := &watch{ready: make(chan struct{})}
	w.urls.Store(&[]string{})
	c.watches[service] = w
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		c.follow(service, w)
	}()
	return w
}

// follow keeps w current with blocking queries for the passing instances of
// service until the registry closes. When Consul cannot be asked, the last
// known list stays in use.
func (c *Consul) follow(service string, w *watch) {
	var (
		index   uint64
		backoff = 100 * time.Millisecond
		once    sync.Once
	)
	markReady := func() { once.Do(func() { close(w.ready) }) }
	first := time.AfterFunc(firstAnswer, markReady) // Resolve answers 503 rather than wait forever
	defer first.Stop()
	for c.ctx.Err() == nil {
		q := (&api.QueryOptions{WaitIndex: index, WaitTime: blockFor}).WithContext(c.ctx)
		entries, meta, err := c.client.Health().Service(service, "", true, q)
		if err != nil {
			if c.ctx.Err() != nil {
				return
			}
			c.log.Warn("consul query failed", "service", service, "err", err)
			markReady()
			select {
			case <-c.ctx.Done():
				return
			case <-time.After(backoff):
			}
			backoff = min(2*backoff, maxBackoff)
			index = 0
			continue
		}
		backoff = 100 * time.Millisecond
		urls := make([]string, 0, len(entries))
		for _, e := range entries {
			urls = append(urls, instanceURL(e))
		}
		w.urls.Store(&urls)
		markReady()
		// Consul's index must grow; when it goes back (a restarted
		// agent) the next query starts over.
		switch {
		case meta.LastIndex < index || meta.LastIndex == 0:
			index = 0
		default:
			index = meta.LastIndex
		}
	}
}

// instanceURL is the base URL of a catalog entry: the service's address, or
// its node's when the service has none.
func instanceURL(e *api.ServiceEntry) string {
	host := e.Service.Address
	if host == "" {
		host = e.Node.Address
	}
	return "http://" + net.JoinHostPort(host, strconv.Itoa(e.Service.Port))
}
