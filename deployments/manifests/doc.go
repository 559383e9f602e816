// Package manifests holds the tests of the deployment files: the
// Dockerfile (BuildKit's parser, with each component's build arguments, and
// its build commands run), the kustomize overlays (built with krusty,
// decoded strictly into the Kubernetes API types), skaffold.yaml
// (skaffold's schema types) and the compose file (compose-go's loader), and
// that every component (the gateway and each module under services/) has
// all of them.
package manifests
