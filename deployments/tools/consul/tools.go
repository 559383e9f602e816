//go:build tools

// Package consul pins the Consul agent the deployment tests run in -dev mode.
// It is not part of go.work: `make consul` builds the agent from this module
// into a cache outside the repository.
package consul

import _ "github.com/hashicorp/consul"
