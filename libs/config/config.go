// Package config loads a service's configuration from environment variables
// (with working defaults) and reports every problem at once.
package config

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"strings"

	"github.com/sethvargo/go-envconfig"
)

// Load fills cfg (a pointer to a struct with `env:"NAME, default=..."` tags)
// from the process environment.
func Load(ctx context.Context, cfg any) error {
	return LoadFrom(ctx, cfg, envconfig.OsLookuper())
}

// LoadMap fills cfg from a map instead of the environment (tests, the local runner).
func LoadMap(ctx context.Context, cfg any, env map[string]string) error {
	return LoadFrom(ctx, cfg, envconfig.MapLookuper(env))
}

// LoadFrom fills cfg from l.
func LoadFrom(ctx context.Context, cfg any, l envconfig.Lookuper) error {
	if err := envconfig.ProcessWith(ctx, &envconfig.Config{Target: cfg, Lookuper: l}); err != nil {
		return fmt.Errorf("load config: %w", err)
	}
	return nil
}

// Problems gathers validation problems so Validate can report them all.
type Problems []string

// Addf records one problem.
func (p *Problems) Addf(format string, args ...any) { *p = append(*p, fmt.Sprintf(format, args...)) }

// Require records that name is required when v is empty.
func (p *Problems) Require(name, v string) {
	if v == "" {
		p.Addf("%s is required", name)
	}
}

// HTTPURL records a problem unless v is an absolute http(s) URL.
func (p *Problems) HTTPURL(name, v string) {
	if u, err := url.Parse(v); err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		p.Addf("%s must be an absolute http(s) URL", name)
	}
}

// LogLevel records a problem unless v is debug, info, warn or error, in any case.
func (p *Problems) LogLevel(name, v string) {
	switch strings.ToLower(v) {
	case "debug", "info", "warn", "error":
	default:
		p.Addf("%s must be one of debug, info, warn, error", name)
	}
}

// Err joins the problems into one error, or nil.
func (p Problems) Err() error {
	if len(p) == 0 {
		return nil
	}
	return errors.New("invalid configuration: " + strings.Join(p, "; "))
}

// Describe returns the configuration as name → value for logging, with every
// field tagged `secret:"true"` masked.
func Describe(cfg any) map[string]string {
	out := map[string]string{}
	describe(reflect.Indirect(reflect.ValueOf(cfg)), out)
	return out
}

func describe(v reflect.Value, out map[string]string) {
	if v.Kind() != reflect.Struct {
		return
	}
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		fv := v.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("env"), ",")
		if name == "" {
			describe(reflect.Indirect(fv), out)
			continue
		}
		val := fmt.Sprint(fv.Interface())
		if f.Tag.Get("secret") == "true" && val != "" {
			val = "****"
		}
		out[name] = val
	}
}
