// Package saml is identity's SAML providers: an organization's identity
// providers for SSO, who may manage them (admins) and the events their
// changes publish. It builds on organizations (the organization entered,
// its teams) and knows neither gin nor the MongoDB driver: it talks to
// storage through Store.
package saml

import (
	"crypto/x509"
	"encoding/pem"
	"strings"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/nullable"
	"github.com/docspub/platform/libs/roles"
)

// ErrNotFound is a provider that is not the organization's.
var ErrNotFound = apierr.NotFound("SAML provider not found")

// The limits of a provider's fields, in characters (the README's Limits
// table lists them).
const (
	MaxLabel       = 30
	MaxEntityID    = 1024
	MaxCertificate = 10000
)

// Provider is an identity provider for SSO into an organization.
type Provider struct {
	ID           string     `bson:"_id"`
	Organization string     `bson:"organization"`
	Label        string     `bson:"label"`
	EntityID     string     `bson:"entityID"`
	Certificate  string     `bson:"certificate"`
	SSOURL       string     `bson:"ssoURL"`
	DefaultTeam  string     `bson:"defaultTeam,omitempty"`
	DefaultRole  roles.Role `bson:"defaultRole"` // "" = guest
	CreatedAt    time.Time  `bson:"createdAt"`
}

// Active reports whether the provider is fully configured.
func (p Provider) Active() bool {
	return p.SSOURL != "" && p.EntityID != "" && p.Certificate != ""
}

// Input is the body of POST ORG/saml (label required) and PATCH
// ORG/saml/{id} (all optional).
type Input struct {
	Label       nullable.Field[string] `json:"label"`
	EntityID    nullable.Field[string] `json:"entityID"`
	Certificate nullable.Field[string] `json:"certificate"`
	SSOURL      nullable.Field[string] `json:"ssoURL"`
	DefaultTeam nullable.Field[string] `json:"defaultTeam"`
	DefaultRole nullable.Field[string] `json:"defaultRole"`
}

// checkCertificate checks a SAML signing certificate: one X.509 certificate
// in PEM ("-----BEGIN CERTIFICATE-----"), with nothing else around it.
func checkCertificate(pr *apierr.Problems, name, s string) {
	if len(s) > MaxCertificate {
		pr.Add(name, "must be at most %d characters", MaxCertificate)
		return
	}
	block, rest := pem.Decode([]byte(strings.TrimSpace(s)))
	switch {
	case block == nil:
		pr.Add(name, "must be an X.509 certificate in PEM (-----BEGIN CERTIFICATE-----)")
	case block.Type != "CERTIFICATE":
		pr.Add(name, "must be a PEM CERTIFICATE block, not %q", block.Type)
	case len(strings.TrimSpace(string(rest))) > 0:
		pr.Add(name, "must hold one certificate and nothing else")
	default:
		if _, err := x509.ParseCertificate(block.Bytes); err != nil {
			pr.Add(name, "is not a valid X.509 certificate")
		}
	}
}
