// Package bundle builds the API document (libs/apidoc/openapi.json) from
// its source files, YAML a reader edits: openapi.yaml, the root (version,
// info, servers, security, tags), and every other *.yaml, each a part of
// the document holding paths, components or both. A part in a folder named
// for a service holds that service's operations only (their x-service);
// the parts in components/ hold what several services use.
//
// Bundling merges the parts: an operation (path and method) or a component
// (kind and name) defined twice is an error, not an override. The output
// is JSON with sorted keys, the same for the same sources.
package bundle

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Root is the name of the root source file.
const Root = "openapi.yaml"

// Shared is the folder of the parts that are no one service's.
const Shared = "components"

// Bundle reads the sources in fsys and returns the document.
func Bundle(fsys fs.FS) ([]byte, error) {
	doc, err := read(fsys, Root)
	if err != nil {
		return nil, err
	}
	for _, k := range []string{"paths", "components"} {
		if _, ok := doc[k]; ok {
			return nil, fmt.Errorf("%s: %s belong in the other files", Root, k)
		}
	}
	paths := map[string]any{}
	components := map[string]any{}
	var errs []error
	err = fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || name == Root || path.Ext(name) != ".yaml" {
			return nil
		}
		part, err := read(fsys, name)
		if err != nil {
			return err
		}
		errs = append(errs, merge(name, part, paths, components)...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	doc["paths"], doc["components"] = paths, components
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("encode the document: %w", err)
	}
	return buf.Bytes(), nil
}

func read(fsys fs.FS, name string) (map[string]any, error) {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := yaml.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if m == nil {
		return nil, fmt.Errorf("%s: empty", name)
	}
	return m, nil
}

// merge adds part's paths and components, reporting what is defined twice
// or out of place.
func merge(name string, part map[string]any, paths, components map[string]any) []error {
	var errs []error
	service := path.Dir(name)
	if service == "." || strings.Contains(service, "/") {
		return []error{fmt.Errorf("%s: a part belongs in a service's folder or in %s/", name, Shared)}
	}
	for k, v := range part {
		switch k {
		case "paths":
			items, ok := v.(map[string]any)
			if !ok {
				errs = append(errs, fmt.Errorf("%s: paths is no mapping", name))
				continue
			}
			if service == Shared {
				errs = append(errs, fmt.Errorf("%s: %s/ holds no operations", name, Shared))
				continue
			}
			for p, item := range items {
				errs = append(errs, mergeItem(name, service, p, item, paths)...)
			}
		case "components":
			kinds, ok := v.(map[string]any)
			if !ok {
				errs = append(errs, fmt.Errorf("%s: components is no mapping", name))
				continue
			}
			for kind, all := range kinds {
				named, ok := all.(map[string]any)
				if !ok {
					errs = append(errs, fmt.Errorf("%s: components.%s is no mapping", name, kind))
					continue
				}
				have, _ := components[kind].(map[string]any)
				if have == nil {
					have = map[string]any{}
					components[kind] = have
				}
				for n, c := range named {
					if _, dup := have[n]; dup {
						errs = append(errs, fmt.Errorf("%s: component %s/%s is defined twice", name, kind, n))
						continue
					}
					have[n] = c
				}
			}
		default:
			errs = append(errs, fmt.Errorf("%s: %q: a part holds only paths and components", name, k))
		}
	}
	return errs
}

func mergeItem(name, service, p string, item any, paths map[string]any) []error {
	ops, ok := item.(map[string]any)
	if !ok {
		return []error{fmt.Errorf("%s: %s is no mapping", name, p)}
	}
	have, _ := paths[p].(map[string]any)
	if have == nil {
		have = map[string]any{}
		paths[p] = have
	}
	var errs []error
	for method, op := range ops {
		if _, dup := have[method]; dup {
			errs = append(errs, fmt.Errorf("%s: %s %s is defined twice", name, strings.ToUpper(method), p))
			continue
		}
		if o, ok := op.(map[string]any); ok && o["x-service"] != service {
			errs = append(errs, fmt.Errorf("%s: %s %s: x-service %v in the folder of %s", name, strings.ToUpper(method), p, o["x-service"], service))
		}
		have[method] = op
	}
	return errs
}
