# Studyloop. See README.md.

HUGO := go tool -modfile=build/hugo.mod hugo
SITE_SOURCES := $(shell find site -type f ! -name .hugo_build.lock)

.PHONY: site templ

# site renders site/ with Hugo into build/site, which package build embeds.
# It reruns only when a file under site/ (or the Hugo pin) changed.
site: build/site/index.html

build/site/index.html: $(SITE_SOURCES) build/hugo.mod build/hugo.sum
	$(HUGO) --source site --destination ../build/site --minify --cleanDestinationDir --panicOnWarning --quiet
	@touch build/site/.keep build/site/index.html

# templ regenerates the committed *_templ.go files from templates/*.templ.
templ:
	go tool templ generate -path templates
