package customtls_test

import (
	"strings"
	"testing"

	"github.com/docspub/platform/gateway/internal/customtls"
	"github.com/docspub/platform/libs/config"
)

// The settings of custom hostnames' TLS are checked only when it is on,
// each problem naming its variable.
func TestConfigCheck(t *testing.T) {
	const ca = "https://acme.example/directory"
	for _, tc := range []struct {
		c    customtls.Config
		name string // the variable the error names; "" accepted
	}{
		{customtls.Config{CA: "nonsense", TLSALPN: false}, ""}, // off: nothing checked
		{customtls.Config{HTTPAddr: ":8081"}, "ACME_HTTP_ADDR"},
		{customtls.Config{Addr: ":8443", HTTPAddr: ":8081", CA: ca, Email: "ops@example.com", TLSALPN: true}, ""},
		{customtls.Config{Addr: ":8443", CA: ca, TLSALPN: true}, ""},
		{customtls.Config{Addr: "8443", CA: ca, TLSALPN: true}, "TLS_ADDR"},
		{customtls.Config{Addr: "127.0.0.1:8080", CA: ca, TLSALPN: true}, "TLS_ADDR"}, // the API's ADDR
		{customtls.Config{Addr: ":8443", HTTPAddr: "127.0.0.1:8080", CA: ca, TLSALPN: true}, "ACME_HTTP_ADDR"},
		{customtls.Config{Addr: ":8443", CA: "http://acme.example/directory", TLSALPN: true}, "ACME_CA"},
		{customtls.Config{Addr: ":8443", CA: ca, Email: "nobody", TLSALPN: true}, "ACME_EMAIL"},
		{customtls.Config{Addr: ":8443", CA: ca, CARoot: "/no/such/root.pem", TLSALPN: true}, "ACME_CA_ROOT"},
		{customtls.Config{Addr: ":8443", CA: ca}, "ACME_TLS_ALPN"},
	} {
		var p config.Problems
		tc.c.Check(&p, "127.0.0.1:8080")
		err := p.Err()
		for _, name := range []string{"TLS_ADDR", "ACME_HTTP_ADDR", "ACME_CA", "ACME_EMAIL", "ACME_CA_ROOT", "ACME_TLS_ALPN"} {
			if named := err != nil && strings.Contains(err.Error(), name+":"); named != (name == tc.name) {
				t.Errorf("Check(%+v) = %v; names %s: %v, want %v", tc.c, err, name, named, name == tc.name)
			}
		}
	}
}
