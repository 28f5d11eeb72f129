// Package static holds the built site (Hugo's output) in memory, ready to
// serve: every file read once at start-up, the build's placeholder origin
// replaced by the runtime public origin in text files, an exact content type,
// a strong ETag and a Cache-Control value per file, and the map from URL
// paths to files, markdown twins and twin redirects.
//
// URL rules, derived from the file names alone:
//
//   - "index.html" serves "/"; "x/index.html" serves "/x/" and, without a
//     redirect, "/x" (agents and the contract name pages without the slash,
//     and /mcp is both a page and an endpoint); any other file serves its own
//     path. A file named exactly like a directory wins over the directory.
//   - An HTML page has a markdown twin when "x.md" (for the home page
//     "index.md") was built next to it; such pages are negotiated.
//   - A locale is a top-level directory whose name looks like a language tag
//     ("de", "pt-br"), which holds an index.html, has no twin of its own and
//     translates at least one page that has a twin. Twins are English only:
//     "/de/x/" is negotiated against the English twin "/x.md", and
//     "/de/x.md" redirects to "/x.md".
//   - "404.html" (and "de/404.html") are not served at their own path; they
//     are the not-found pages. Files whose name starts with a dot (.keep) are
//     not served; directories may (.well-known).
package static

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"regexp"
	"sort"
	"strings"
)

// Cache lifetimes: pages and agent files change with every deployment, so
// caches revalidate them often; styles, scripts, images and fonts rarely do.
const (
	CachePage  = "public, max-age=300"
	CacheAsset = "public, max-age=86400"
)

// Options configure Load. A nil *Options means the defaults.
type Options struct {
	// BaseURL is the public origin, such as "https://study.example", that
	// replaces the placeholder origin in every text file. Empty keeps the
	// placeholder.
	BaseURL string
	// Placeholder is the origin the site was built with (build.Placeholder
	// for the service's site). Empty: nothing is replaced.
	Placeholder string
}

// File is one built file, ready to serve.
type File struct {
	// Name is the file's path in the built site, such as "support/index.html".
	Name string
	// Body is the content, with the public origin substituted.
	Body []byte
	// ContentType is the exact Content-Type to send.
	ContentType string
	// ETag is a strong entity tag, quotes included, derived from Body.
	ETag string
	// CacheControl is the Cache-Control value to send.
	CacheControl string
	// Text reports a text format (HTML, markdown, JSON, XML, CSS, SVG and
	// the like), which compresses well; images, fonts and PDFs are already
	// compressed.
	Text bool
}

// Entry is what one URL path serves.
type Entry struct {
	// File is the file served at the path.
	File *File
	// Twin is the markdown twin of an HTML page, or nil when the path is not
	// negotiated.
	Twin *File
	// TwinURL is the twin's own URL path, such as "/support.md".
	TwinURL string
	// Locale is the language prefix of a translated page ("de"), or "".
	Locale string
}

// Site is the whole built site in memory. It is read-only after Load and
// safe for concurrent use.
type Site struct {
	entries   map[string]Entry
	redirects map[string]string
	notFound  map[string]*File // by locale; "" is the default language
}

// Load reads every regular file of fsys into memory.
func Load(fsys fs.FS, opts *Options) (*Site, error) {
	if opts == nil {
		opts = &Options{}
	}
	placeholder := strings.TrimRight(opts.Placeholder, "/")
	base := strings.TrimRight(opts.BaseURL, "/")
	if base == "" {
		base = placeholder
	}
	if base != "" {
		if err := checkOrigin(base); err != nil {
			return nil, err
		}
	}

	files := map[string]*File{}
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() || strings.HasPrefix(d.Name(), ".") {
			return nil // directories, and placeholders such as .keep
		}
		body, err := fs.ReadFile(fsys, name)
		if err != nil {
			return err
		}
		ctype, text := contentType(name)
		if text && placeholder != "" {
			body = bytes.ReplaceAll(body, []byte(placeholder), []byte(base))
		}
		sum := sha256.Sum256(body)
		files[name] = &File{
			Name:         name,
			Body:         body,
			ContentType:  ctype,
			ETag:         `"` + base64.RawURLEncoding.EncodeToString(sum[:18]) + `"`,
			CacheControl: cacheControl(name),
			Text:         text,
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("static: reading the built site: %w", err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("static: the built site is empty (run make site)")
	}
	return index(files), nil
}

// checkOrigin accepts an http(s) origin whose characters need no escaping
// in HTML, XML, JSON or markdown, so plain substitution stays well formed.
func checkOrigin(origin string) error {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil ||
		strings.ContainsAny(origin, "\"'<>&\\ \t\r\n()[]{}") {
		return fmt.Errorf("static: base URL %q must be a plain http or https origin such as https://study.example", origin)
	}
	return nil
}

var languageTag = regexp.MustCompile(`^[a-z]{2,3}(-[a-z0-9]{2,8})*$`)

// index builds the URL map from the file names.
func index(files map[string]*File) *Site {
	s := &Site{entries: map[string]Entry{}, redirects: map[string]string{}, notFound: map[string]*File{}}

	// twinOf names the markdown twin of a page directory ("" is home).
	twinOf := func(dir string) string {
		if dir == "" {
			return "index.md"
		}
		return dir + ".md"
	}
	locales := map[string]bool{}
	for name := range files {
		dir, ok := strings.CutSuffix(name, "/index.html")
		if !ok {
			continue
		}
		lang, page, ok := strings.Cut(dir, "/")
		if !ok || !languageTag.MatchString(lang) || files[lang+"/index.html"] == nil || files[twinOf(lang)] != nil {
			continue
		}
		if files[twinOf(page)] != nil && files[twinOf(dir)] == nil {
			locales[lang] = true
		}
	}

	for name, f := range files {
		switch {
		case name == "404.html":
			s.notFound[""] = f
			continue
		case path.Base(name) == "404.html" && locales[path.Dir(name)]:
			s.notFound[path.Dir(name)] = f
			continue
		}
		dir, isPage := strings.CutSuffix(name, "index.html")
		if !isPage || (dir != "" && !strings.HasSuffix(dir, "/")) {
			s.entries["/"+name] = Entry{File: f}
			continue
		}
		dir = strings.TrimSuffix(dir, "/")
		e := Entry{File: f}
		if twin := files[twinOf(dir)]; twin != nil {
			e.Twin, e.TwinURL = twin, "/"+twin.Name
		} else if lang, page, _ := strings.Cut(dir, "/"); locales[lang] {
			if twin := files[twinOf(page)]; twin != nil {
				e.Twin, e.TwinURL, e.Locale = twin, "/"+twin.Name, lang
			}
		}
		if dir == "" {
			s.entries["/"] = e
			continue
		}
		s.entries["/"+dir+"/"] = e
		if _, taken := files[dir]; !taken {
			s.entries["/"+dir] = e
		}
	}

	for lang := range locales {
		for name, f := range files {
			if strings.HasSuffix(name, ".md") && !strings.Contains(name, "/") {
				from := "/" + lang + "/" + f.Name
				if _, built := s.entries[from]; !built {
					s.redirects[from] = "/" + f.Name
				}
			}
		}
	}
	return s
}

// Lookup returns what urlPath serves.
func (s *Site) Lookup(urlPath string) (Entry, bool) {
	e, ok := s.entries[urlPath]
	return e, ok
}

// Paths lists every URL path the site serves, sorted.
func (s *Site) Paths() []string {
	paths := make([]string, 0, len(s.entries))
	for p := range s.entries {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return paths
}

// Redirects maps locale-prefixed twin paths ("/de/support.md") to the twin
// they redirect to ("/support.md").
func (s *Site) Redirects() map[string]string {
	out := make(map[string]string, len(s.redirects))
	for from, to := range s.redirects {
		out[from] = to
	}
	return out
}

// NotFound returns the not-found page for urlPath: the locale's own 404 page
// when the path is under a locale that has one, otherwise the default
// language's, or nil when the build has none.
func (s *Site) NotFound(urlPath string) *File {
	if lang, _, ok := strings.Cut(strings.TrimPrefix(urlPath, "/"), "/"); ok {
		if f := s.notFound[lang]; f != nil && lang != "" {
			return f
		}
	}
	return s.notFound[""]
}

// NotFoundPages returns every not-found page by locale ("" for the default
// language).
func (s *Site) NotFoundPages() map[string]*File {
	out := make(map[string]*File, len(s.notFound))
	for lang, f := range s.notFound {
		out[lang] = f
	}
	return out
}

// contentType returns the Content-Type for a built file and whether it is
// text in which the placeholder origin must be replaced.
func contentType(name string) (ctype string, text bool) {
	switch name {
	case "mcp/server-card", "mcp/server-card.json":
		return "application/mcp-server-card+json", true
	case ".well-known/ai-catalog.json":
		return "application/ai-catalog+json", true
	case ".well-known/oauth-authorization-server", ".well-known/oauth-authorization-server/mcp",
		".well-known/oauth-protected-resource", ".well-known/oauth-protected-resource/mcp":
		return "application/json", true
	}
	switch strings.ToLower(path.Ext(name)) {
	case ".html", ".htm":
		return "text/html; charset=utf-8", true
	case ".md":
		return "text/markdown; charset=utf-8", true
	case ".txt":
		return "text/plain; charset=utf-8", true
	case ".json":
		return "application/json", true
	case ".webmanifest":
		return "application/manifest+json", true
	case ".xml":
		return "application/xml", true
	case ".css":
		return "text/css; charset=utf-8", true
	case ".js", ".mjs":
		return "text/javascript; charset=utf-8", true
	case ".svg":
		return "image/svg+xml", true
	case ".png":
		return "image/png", false
	case ".jpg", ".jpeg":
		return "image/jpeg", false
	case ".gif":
		return "image/gif", false
	case ".webp":
		return "image/webp", false
	case ".avif":
		return "image/avif", false
	case ".ico":
		return "image/vnd.microsoft.icon", false
	case ".woff2":
		return "font/woff2", false
	case ".woff":
		return "font/woff", false
	case ".pdf":
		return "application/pdf", false
	}
	return "application/octet-stream", false
}

func cacheControl(name string) string {
	switch strings.ToLower(path.Ext(name)) {
	case ".css", ".js", ".mjs", ".svg", ".png", ".jpg", ".jpeg", ".gif", ".webp", ".avif", ".ico", ".woff", ".woff2":
		return CacheAsset
	}
	return CachePage
}

// ETagMatches reports whether the field lines of an If-None-Match header
// (RFC 9110 §13.1.2), such as r.Header["If-None-Match"], name etag or are
// "*", comparing weakly as the field requires. Reading stops at a
// malformed entry.
func ETagMatches(lines []string, etag string) bool {
	for _, line := range lines {
		for line != "" {
			line = strings.TrimLeft(line, " \t,")
			if line == "" {
				break
			}
			if line[0] == '*' {
				return true
			}
			line = strings.TrimPrefix(line, "W/")
			if line == "" || line[0] != '"' {
				return false // malformed: no match
			}
			end := strings.IndexByte(line[1:], '"')
			if end < 0 {
				return false
			}
			if line[:end+2] == etag {
				return true
			}
			line = line[end+2:]
		}
	}
	return false
}
