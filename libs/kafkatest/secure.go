package kafkatest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/docspub/platform/libs/kafkax"
	"github.com/twmb/franz-go/pkg/kfake"
)

// Secure is a one-broker kfake cluster that requires SASL over TLS, as a
// managed Kafka does. Its certificate is signed by a CA made for the test,
// whose PEM file is CAFile.
type Secure struct {
	Brokers   []string
	CAFile    string
	Mechanism string // SASL mechanism of the user
	Username  string
	Password  string
}

// Config is the component configuration that reaches the cluster as its
// user: TLS with the test CA, SASL with the user's mechanism and password.
func (s *Secure) Config(password string) kafkax.Config {
	return kafkax.Config{Brokers: s.Brokers, TLS: true, TLSCAFile: s.CAFile,
		SASLMechanism: s.Mechanism, SASLUsername: s.Username, SASLPassword: password,
		ProvisionTopics: true, TopicPartitions: 3}
}

// Env is Config(s.Password) as the environment variables a component reads.
func (s *Secure) Env() map[string]string {
	return map[string]string{
		"KAFKA_BROKERS": s.Brokers[0], "KAFKA_TLS": "true", "KAFKA_TLS_CA_FILE": s.CAFile,
		"KAFKA_SASL_MECHANISM": s.Mechanism, "KAFKA_SASL_USERNAME": s.Username, "KAFKA_SASL_PASSWORD": s.Password,
	}
}

// StartSecure starts a cluster that accepts only TLS connections
// authenticated by SASL mechanism (PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512)
// as the returned user; topics are not auto-created. It is stopped when
// the test ends.
func StartSecure(t testing.TB, mechanism string) *Secure {
	t.Helper()
	dir := t.TempDir()
	serverTLS, caFile := testCA(t, dir)
	s := &Secure{CAFile: caFile, Mechanism: mechanism, Username: "docspub", Password: "s3cret-" + Topic()}
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.DefaultNumPartitions(1),
		kfake.EnableSASL(), kfake.Superuser(mechanism, s.Username, s.Password), kfake.TLS(serverTLS))
	if err != nil {
		t.Fatalf("kafkatest: start secure kfake: %v", err)
	}
	t.Cleanup(c.Close)
	s.Brokers = c.ListenAddrs()
	return s
}

// testCA makes a CA and a certificate for 127.0.0.1 and localhost signed by
// it; it returns the server's TLS configuration and the CA's PEM file.
func testCA(t testing.TB, dir string) (*tls.Config, string) {
	t.Helper()
	must := func(err error) {
		if err != nil {
			t.Fatalf("kafkatest: test CA: %v", err)
		}
	}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	must(err)
	now := time.Now()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kafkatest CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	must(err)
	ca, err := x509.ParseCertificate(caDER)
	must(err)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	must(err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "kafkatest broker"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	must(err)
	caFile := filepath.Join(dir, "ca.pem")
	must(os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), 0o600))
	cert := tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, caFile
}
