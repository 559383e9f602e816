#!/usr/bin/env bash
# oneway.sh [rev]: how many ways the code does each cross-cutting job, at rev
# (default HEAD), counted over non-test Go files (the vendored embedded
# server aside). `make oneway` runs it; compare two revisions to see a change.
set -euo pipefail
rev=${1:-HEAD}
files=(-- '*.go' ':!*_test.go' ':!libs/embedded/*')
count() { git grep -n -E "$1" "$rev" "${files[@]}" "${@:2}" | wc -l; }
listed() { git grep -l -i -E "$1" "$rev" "${files[@]}" "${@:2}" | wc -l; }

echo "at $(git rev-parse --short "$rev")"
echo "compare-and-set on a version, outside libs/docstore (stores doing their own): $(listed '"\$inc": bson\.M\{"version"|\{Key: "version", Value:' ':!libs/docstore/*')"
echo "Version fields in domain types (non-adapter packages): $(count '^\s+Version\s+int(64)?\s' ':!*mongo/*' ':!libs/*')"
echo "OnEvents/OnWrite setters: $(count 'func \(s \*[A-Za-z]+\) On(Events|Write)\(')"
echo "hand-written Limit+1 reads (paging.Fetch does it): $(count '[Ll]imit ?\+ ?1' ':!libs/paging/*' ':!libs/docstore/*')"
echo "caller accessors outside libs/internaltoken (its From and CallerOf): $(count '^func [a-zA-Z]*\(c \*gin\.Context\) (roles\.Caller|access\.Caller|internaltoken\.Principal)' ':!libs/internaltoken/*')"
echo "cache types: sizedcache.New $(count 'sizedcache\.New\['), golang-lru $(count 'lru\.New(WithEvict)?\['), expirable LRU $(count 'expirable\.NewLRU\[')"
echo "backoff implementations outside libs/backoff: $(count '^func [a-zA-Z]*([bB]ackoff|retryWait)\(' ':!libs/backoff/*')"
echo "gateway route path literals (routes come from the API document): $(git grep -n '"/v1/' "$rev" -- 'gateway/internal/route/*.go' ':!*_test.go' | wc -l)"
echo "production files naming the embedded server outside its adapters: $(listed 'ferretdb|embedded (mongo|server|database)' ':!libs/embedded/*' ':!*mongo/*' ':!libs/mongox/*' ':!libs/docstore/*' ':!libs/mongotest/*' ':!deployments/local/*')"
echo "event type literals outside their definitions: 0 while libs/internalapi/eventtest passes (it fails on any)"
