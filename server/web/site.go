package web

import (
	"errors"
	"io/fs"
	"net/http"
	"slices"
	"strconv"

	"github.com/studyloop/studyloop/build"
	"github.com/studyloop/studyloop/server/negotiate"
	"github.com/studyloop/studyloop/server/static"
)

// Offers of a negotiated page, in the order a bare "*/*" or a missing Accept
// header picks them.
const (
	offerHTML = iota
	offerMarkdown
)

// connectPagePaths are the negotiated URLs that never answer 406: the MCP
// connect page shares its URL with the MCP endpoint, and MCP clients send
// Accept headers a page cannot satisfy; they get the HTML page instead.
var connectPagePaths = []string{"/mcp", "/mcp/"}

// siteFiles is the built site with every response prepared at start-up, so
// serving a request is a map lookup, an Accept choice and a copy of
// precomputed header values.
type siteFiles struct {
	site      *static.Site
	chooser   *negotiate.Chooser
	resources map[string]*siteResource
	redirects map[string]*preparedResponse
	// notFound is the 404 answer for each built 404 page, and under the
	// nil key the answer when the build has no page for the path.
	notFound map[*static.File]*preparedResponse
}

// siteResource is what one URL path answers.
type siteResource struct {
	// reps holds one representation, or for a negotiated page the HTML
	// and the markdown twin in offer order.
	reps []*representation
	// notAcceptable is the 406 answer of a negotiated page; nil serves
	// the HTML page instead (the connect page at /mcp).
	notAcceptable *preparedResponse
}

type representation struct {
	etag        string
	ok          preparedResponse // 200
	notModified preparedResponse // 304
}

// preparedResponse is a complete response computed once.
type preparedResponse struct {
	status int
	header []headerField
	body   []byte
}

type headerField struct {
	key   string   // canonical form
	value []string // len == cap, so a later Add copies instead of writing into it
}

func (p *preparedResponse) set(key, value string) {
	p.header = append(p.header, headerField{http.CanonicalHeaderKey(key), []string{value}[:1:1]})
}

// write sends the response; HEAD gets the headers only.
func (p *preparedResponse) write(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	for _, f := range p.header {
		h[f.key] = f.value
	}
	w.WriteHeader(p.status)
	if r.Method != http.MethodHead && len(p.body) > 0 {
		w.Write(p.body) //nolint:errcheck // the client went away
	}
}

// newSiteFiles loads the built site and prepares every response. baseURL
// replaces the build's placeholder origin (build.Placeholder).
func newSiteFiles(fsys fs.FS, baseURL string) (*siteFiles, error) {
	if fsys == nil {
		return nil, errors.New("web: Deps.Site is required (build.Site(), or an fstest.MapFS in tests)")
	}
	site, err := static.Load(fsys, &static.Options{BaseURL: baseURL, Placeholder: build.Placeholder})
	if err != nil {
		return nil, err
	}
	chooser, err := negotiate.New("text/html", "text/markdown")
	if err != nil {
		return nil, err
	}
	s := &siteFiles{
		site:      site,
		chooser:   chooser,
		resources: map[string]*siteResource{},
		redirects: map[string]*preparedResponse{},
		notFound:  map[*static.File]*preparedResponse{nil: prepareNotFound(nil)},
	}
	// Responses are shared between the paths that serve the same entry
	// ("/support/" and "/support"), so prepare each file once.
	plain := map[*static.File]*representation{}
	for _, p := range site.Paths() {
		e, _ := site.Lookup(p)
		if e.Twin == nil {
			if plain[e.File] == nil {
				plain[e.File] = prepareFile(e.File)
			}
			s.resources[p] = &siteResource{reps: []*representation{plain[e.File]}}
			continue
		}
		s.resources[p] = preparePage(e, !slices.Contains(connectPagePaths, p))
	}
	for from, to := range site.Redirects() {
		r := &preparedResponse{status: http.StatusMovedPermanently}
		r.set("Location", to)
		r.set("Cache-Control", static.CachePage)
		r.set("Content-Type", "text/plain; charset=utf-8")
		r.body = []byte("Markdown twins are English only: " + to + "\n")
		r.set("Content-Length", strconv.Itoa(len(r.body)))
		s.redirects[from] = r
	}
	for _, f := range site.NotFoundPages() {
		s.notFound[f] = prepareNotFound(f)
	}
	return s, nil
}

// prepareFile prepares a file that is served as it is.
func prepareFile(f *static.File) *representation {
	rep := &representation{etag: f.ETag}
	rep.ok = preparedResponse{status: http.StatusOK, body: f.Body}
	rep.ok.set("Content-Type", f.ContentType)
	rep.ok.set("Content-Length", strconv.Itoa(len(f.Body)))
	rep.notModified = preparedResponse{status: http.StatusNotModified}
	for _, r := range []*preparedResponse{&rep.ok, &rep.notModified} {
		r.set("ETag", f.ETag)
		r.set("Cache-Control", f.CacheControl)
		r.set("X-Content-Type-Options", "nosniff")
	}
	return rep
}

// preparePage prepares the two representations of a negotiated page and,
// when refuse406 is true, its 406 answer.
func preparePage(e static.Entry, refuse406 bool) *siteResource {
	html, twin := prepareFile(e.File), prepareFile(e.Twin)
	link := "<" + e.TwinURL + `>; rel="alternate"; type="text/markdown"`
	for _, r := range []*preparedResponse{&html.ok, &html.notModified, &twin.ok, &twin.notModified} {
		r.set("Vary", "Accept")
	}
	for _, r := range []*preparedResponse{&html.ok, &html.notModified} {
		r.set("Link", link)
	}
	for _, r := range []*preparedResponse{&twin.ok, &twin.notModified} {
		r.set("Content-Location", e.TwinURL)
		if e.Locale != "" {
			r.set("Content-Language", "en")
		}
	}
	res := &siteResource{reps: []*representation{offerHTML: html, offerMarkdown: twin}}
	if refuse406 {
		r := &preparedResponse{status: http.StatusNotAcceptable}
		r.body = []byte("406 Not Acceptable\n\nThis page is available as:\n" +
			"  text/html; charset=utf-8\n" +
			"  text/markdown; charset=utf-8 (also at " + e.TwinURL + ")\n" +
			"Send one of them in the Accept header, or */*.\n")
		r.set("Content-Type", "text/plain; charset=utf-8")
		r.set("Content-Length", strconv.Itoa(len(r.body)))
		r.set("Vary", "Accept")
		r.set("Link", link)
		r.set("Cache-Control", static.CachePage)
		r.set("X-Content-Type-Options", "nosniff")
		res.notAcceptable = r
	}
	return res
}

// prepareNotFound prepares a 404 answer with the built 404 page, or a line
// of text when the build has none.
func prepareNotFound(f *static.File) *preparedResponse {
	r := &preparedResponse{status: http.StatusNotFound}
	if f != nil {
		r.body = f.Body
		r.set("Content-Type", f.ContentType)
	} else {
		r.body = []byte("404 page not found\n")
		r.set("Content-Type", "text/plain; charset=utf-8")
	}
	r.set("Content-Length", strconv.Itoa(len(r.body)))
	r.set("Cache-Control", "no-cache")
	r.set("X-Content-Type-Options", "nosniff")
	return r
}

// serve answers r from the resource at urlPath.
func (s *siteFiles) serve(w http.ResponseWriter, r *http.Request, urlPath string) {
	res := s.resources[urlPath]
	if res == nil {
		if redirect := s.redirects[urlPath]; redirect != nil {
			redirect.write(w, r)
			return
		}
		s.notFound[s.site.NotFound(urlPath)].write(w, r)
		return
	}
	rep := res.reps[0]
	if len(res.reps) > 1 {
		choice := s.chooser.Choose(r.Header["Accept"])
		if choice < 0 {
			if res.notAcceptable != nil {
				res.notAcceptable.write(w, r)
				return
			}
			choice = offerHTML
		}
		rep = res.reps[choice]
	}
	if inm := r.Header["If-None-Match"]; len(inm) > 0 && static.ETagMatches(inm, rep.etag) {
		rep.notModified.write(w, r)
		return
	}
	rep.ok.write(w, r)
}

// handleSite serves every built file from memory (GET and HEAD), negotiates
// HTML against markdown twins on content pages, redirects locale-prefixed
// twins to the English twin and answers unknown paths with the 404 page. It
// is the "GET /" fallback, so every more specific route wins over it.
func handleSite(s *siteFiles) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.serve(w, r, r.URL.Path)
	})
}

// handleConnectPage serves the negotiated MCP connect page (GET and HEAD of
// /mcp) whatever the request path: markdown when preferred, otherwise HTML,
// never 406. The MCP handler can call it for the GETs it does not answer
// itself.
func handleConnectPage(s *siteFiles) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.serve(w, r, connectPagePaths[0])
	})
}
