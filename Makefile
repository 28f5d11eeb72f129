# Studyloop. See README.md.

HUGO := go tool -modfile=build/hugo.mod hugo
SITE_SOURCES := $(shell find site -type f ! -name .hugo_build.lock)

.PHONY: site templ build run test bench fuzz conformance quality check-format check-generated

# site renders site/ with Hugo into build/site, which package build embeds.
# It reruns only when a file under site/ (or the Hugo pin) changed.
site: build/site/index.html

build/site/index.html: $(SITE_SOURCES) build/hugo.mod build/hugo.sum
	$(HUGO) --source site --destination ../build/site --minify --cleanDestinationDir --panicOnWarning --quiet
	@touch build/site/.keep build/site/index.html

# templ regenerates the committed *_templ.go files from templates/*.templ.
templ:
	go tool templ generate -path templates

# build compiles bin/studyloop with the rendered site embedded.
build: site templ
	go build -o bin/studyloop ./server/cmd/studyloop

# run builds, then serves at ADDR (default :8080) on BASE_URL (default
# http://localhost:8080) with the embedded SQLite database in data/.
run: build
	./bin/studyloop serve

# test fails on unformatted Go files, go vet findings and stale templ output,
# then runs every test on SQLite and on a throwaway PostgreSQL cluster.
test: site check-format check-generated
	go vet ./...
	.ci/with-postgres go test ./...

check-format:
	@unformatted=$$(gofmt -l .); \
	if [ -n "$$unformatted" ]; then echo "gofmt -w needed on:"; echo "$$unformatted"; exit 1; fi

# check-generated regenerates the templ components in a scratch copy and
# fails when the committed *_templ.go files differ from the output.
check-generated:
	@scratch=$$(mktemp -d) && trap 'rm -rf "$$scratch"' EXIT && \
	cp -R templates "$$scratch/templates" && find "$$scratch/templates" -name '*_templ.go' -delete && \
	{ go tool templ generate -path "$$scratch/templates" >"$$scratch/log" 2>&1 || { cat "$$scratch/log"; exit 1; }; } && \
	stale=$$(diff -rq -x '*.templ' templates "$$scratch/templates" || true) && \
	if [ -n "$$stale" ]; then echo "templ output is stale (run make templ):"; echo "$$stale"; exit 1; fi

# bench runs every benchmark once, PostgreSQL included.
bench: site
	.ci/with-postgres go test -run '^$$' -bench . -benchmem ./...

# quality runs the question generator over the shared corpus (read in
# place, never copied) and our own samples, and prints the mechanical
# figures per text: counts, types, repeats and precision-check failures.
quality:
	go run ./server/cmd/quality ../shared/corpus server/engine/testdata

# bench-nginx serves the built site from bin/studyloop and from Debian's
# nginx (gzip_static on gzip -9 copies) side by side, each pinned to one CPU,
# and prints requests per second, the ratios and the bytes each sends. It
# installs nothing (apt-get install nginx-light wrk) and is not part of test.
bench-nginx: build
	.ci/bench-nginx

# fuzz runs every fuzz test (each func Fuzz... under server/) for FUZZTIME
# apiece, ten minutes by default: make fuzz FUZZTIME=30s for a short run.
FUZZTIME ?= 10m
fuzz:
	@set -e; for dir in $$(grep -rl --include='*_test.go' '^func Fuzz' server | xargs -n1 dirname | sort -u); do \
		for fuzzer in $$(grep -h '^func Fuzz' $$dir/*_test.go | sed 's/^func \(Fuzz[A-Za-z0-9_]*\).*/\1/'); do \
			echo "== $$fuzzer ($$dir, $(FUZZTIME))"; \
			go test ./$$dir -run '^$$' -fuzz "^$${fuzzer}\$$" -fuzztime $(FUZZTIME); \
		done; \
	done

# conformance runs the official MCP conformance suite, pinned, through npx:
# the server scenarios against /mcp at 2026-07-28 and 2025-11-25
# (server/mcp TestConformance, with the checks this server cannot pass in
# server/mcp/testdata/conformance-baseline.yml) and the authorization server
# metadata scenario (server/web TestConformanceAuthorization). The suite
# needs Node 22, which npx fetches as the npm package node. About a minute;
# not part of test, since it needs the npm registry.
CONFORMANCE := npx -y -p node@22.23.3 -p @modelcontextprotocol/conformance@0.2.0-alpha.12 -- conformance
conformance: site
	MCP_CONFORMANCE='$(CONFORMANCE)' go test -count=1 -v -run '^TestConformance' ./server/mcp ./server/web
