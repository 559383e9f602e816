// Package dnstest serves DNS TXT records on a loopback UDP port, for tests
// of custom hostname verification: a real DNS server (github.com/miekg/dns)
// that the sites service's resolver (HOSTNAME_DNS_SERVER) is pointed at.
package dnstest

import (
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/miekg/dns"
)

// Server is a DNS server answering TXT questions from its records; any
// other name is NXDOMAIN.
type Server struct {
	// Addr is the server's host:port (UDP).
	Addr string

	mu      sync.Mutex
	records map[string][]string // fully qualified, lower-case name → TXT values
	srv     *dns.Server
}

// Start starts a server on 127.0.0.1 and stops it when the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("dnstest: listen: %v", err)
	}
	s := &Server{Addr: pc.LocalAddr().String(), records: map[string][]string{}}
	started := make(chan struct{})
	s.srv = &dns.Server{PacketConn: pc, Handler: dns.HandlerFunc(s.serve), NotifyStartedFunc: func() { close(started) }}
	go func() { _ = s.srv.ActivateAndServe() }()
	<-started
	t.Cleanup(func() { _ = s.srv.Shutdown() })
	return s
}

// SetTXT sets the TXT values of name (none removes it).
func (s *Server) SetTXT(name string, values ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	name = dns.Fqdn(strings.ToLower(name))
	if len(values) == 0 {
		delete(s.records, name)
		return
	}
	s.records[name] = values
}

func (s *Server) serve(w dns.ResponseWriter, req *dns.Msg) {
	m := new(dns.Msg)
	m.SetReply(req)
	m.Authoritative = true
	s.mu.Lock()
	found := false
	for _, q := range req.Question {
		vals, ok := s.records[strings.ToLower(q.Name)]
		found = found || ok
		if !ok || (q.Qtype != dns.TypeTXT && q.Qtype != dns.TypeANY) {
			continue
		}
		for _, v := range vals {
			m.Answer = append(m.Answer, &dns.TXT{Hdr: dns.RR_Header{Name: q.Name, Rrtype: dns.TypeTXT, Class: dns.ClassINET, Ttl: 0}, Txt: []string{v}})
		}
	}
	s.mu.Unlock()
	if !found {
		m.Rcode = dns.RcodeNameError
	}
	_ = w.WriteMsg(m)
}
