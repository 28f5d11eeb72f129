// Package build embeds the site that Hugo renders from site/ (make site) into
// the binary: HTML pages in English and German, markdown twins, llms.txt,
// llms-full.txt, both sitemaps, robots.txt, openapi.json and the discovery
// documents. Absolute URLs in these files use the placeholder origin
// Placeholder, which the server replaces with its public address.
package build

import (
	"embed"
	"io/fs"
)

// Placeholder is the origin the site is built with (Hugo's baseURL without
// its trailing slash). Every absolute URL in a built text file starts with
// it; the server swaps it for its BASE_URL so one build serves any address.
const Placeholder = "http://studyloop.invalid"

// files holds build/site. On a fresh clone only site/.keep is there, so the
// package compiles before Hugo has run; Site is then empty apart from it.
//
//go:embed all:site
var files embed.FS

// Site returns the built site as a file system rooted at the site's top
// (index.html, llms.txt, .well-known/ai-catalog.json, ...). Before make site
// has run it holds only the placeholder file .keep.
func Site() fs.FS {
	site, err := fs.Sub(files, "site")
	if err != nil {
		// fs.Sub fails only for an invalid path name; "site" is valid.
		panic(err)
	}
	return site
}
