package web

import (
	"errors"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/studyloop/studyloop/build"
	"github.com/studyloop/studyloop/server/coalesce"
	"github.com/studyloop/studyloop/server/compress"
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

// siteFiles is the built site with every response prepared at start-up or,
// for compressed forms, on first demand, so serving a request is a map
// lookup, an Accept and an Accept-Encoding choice and a copy of
// precomputed header values.
type siteFiles struct {
	site      *static.Site
	chooser   *negotiate.Chooser
	encodings negotiate.Encodings
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
	// notAcceptable is the 406 answer of a negotiated page to an Accept
	// header that takes neither; nil serves the HTML page instead (the
	// connect page at /mcp).
	notAcceptable *preparedResponse
	// noAcceptableCoding is the 406 answer to an Accept-Encoding header
	// that refuses identity and every compressed form; nil sends identity
	// instead (the connect page at /mcp).
	noAcceptableCoding *preparedResponse
}

// representation is one file as a URL serves it, in each content coding.
type representation struct {
	file *static.File
	// fields are sent on every 200 and 304 besides the content fields
	// and ETag: Cache-Control, Vary and those a negotiated page adds.
	fields   []headerField
	identity encoded
	// forms is nil for a file that is never compressed; otherwise the
	// file's compressed bodies, made on first demand, and encoded holds
	// the responses built from them.
	forms   *compressedFile
	encoded atomic.Pointer[encodedForms]
}

// encoded is a representation in one content coding.
type encoded struct {
	etag        string
	ok          preparedResponse // 200
	notModified preparedResponse // 304
}

// encodedForms lists a representation's codings smallest first, identity
// last, so that negotiate.Qualities.Choose breaks a tie by size.
type encodedForms struct {
	codings []negotiate.Coding
	forms   []*encoded
}

// compressedFile compresses a built file once, when a client first accepts
// a compressed form of it: brotli 11 takes tens of milliseconds on the
// largest files, too long for start-up, and files nobody asks for stay
// uncompressed. Paths that serve the same file share it.
type compressedFile struct {
	compressor *compress.Compressor
	body       []byte
	once       sync.Once
	forms      compress.Forms
}

func (c *compressedFile) get() compress.Forms {
	c.once.Do(func() { c.forms = c.compressor.Compress(c.body) })
	return c.forms
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

func newHeaderField(key, value string) headerField {
	return headerField{http.CanonicalHeaderKey(key), []string{value}[:1:1]}
}

func (p *preparedResponse) set(key, value string) {
	p.header = append(p.header, newHeaderField(key, value))
}

// heldAbove is the body length above which a response is held to leave
// in one write (coalesce.HoldBody: prepared bodies never change, so the
// end of a large one is sent from the body itself rather than copied):
// net/http buffers a shorter body and sends it with the headers anyway.
const heldAbove = 2 << 10

// write sends the response; HEAD gets the headers only.
func (p *preparedResponse) write(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	for _, f := range p.header {
		h[f.key] = f.value
	}
	if r.Method == http.MethodHead || len(p.body) == 0 {
		w.WriteHeader(p.status)
		return
	}
	if len(p.body) > heldAbove && len(p.body) <= coalesce.MaxHeld {
		coalesce.HoldBody(r.Context(), p.body)
	}
	w.WriteHeader(p.status)
	w.Write(p.body) //nolint:errcheck // the client went away
}

// newSiteFiles loads the built site and prepares every response. baseURL
// replaces the build's placeholder origin (build.Placeholder).
func newSiteFiles(fsys fs.FS, baseURL string) (*siteFiles, error) {
	if fsys == nil {
		return nil, errors.New("web: LoadSite needs the built site (build.Site(), or an fstest.MapFS in tests)")
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
	p := newPreparer()
	for _, path := range site.Paths() {
		e, _ := site.Lookup(path)
		s.resources[path] = p.resource(e, !slices.Contains(connectPagePaths, path))
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

// preparer builds the resources of a site. Paths that serve the same entry
// ("/support/" and "/support") share one resource, and representations of
// the same file share its compressed forms, so each file is compressed at
// most once.
type preparer struct {
	compressor         compress.Compressor
	resources          map[*static.File]*siteResource
	compressed         map[*static.File]*compressedFile
	noAcceptableCoding *preparedResponse
}

func newPreparer() *preparer {
	r := &preparedResponse{status: http.StatusNotAcceptable}
	r.body = []byte("406 Not Acceptable\n\nAccept-Encoding refuses identity and every coding this resource is available in.\n" +
		"Allow identity, or one of br, zstd and gzip.\n")
	r.set("Content-Type", "text/plain; charset=utf-8")
	r.set("Content-Length", strconv.Itoa(len(r.body)))
	r.set("Vary", "Accept-Encoding")
	r.set("Cache-Control", "no-store")
	r.set("X-Content-Type-Options", "nosniff")
	return &preparer{
		resources:          map[*static.File]*siteResource{},
		compressed:         map[*static.File]*compressedFile{},
		noAcceptableCoding: r,
	}
}

// resource prepares what the entry answers; refuse406 is false for the
// connect page, which answers every Accept and Accept-Encoding.
func (p *preparer) resource(e static.Entry, refuse406 bool) *siteResource {
	if res := p.resources[e.File]; res != nil {
		return res
	}
	var res *siteResource
	if e.Twin == nil {
		res = &siteResource{reps: []*representation{p.representation(e.File, false)}}
	} else {
		res = p.page(e, refuse406)
	}
	if refuse406 {
		res.noAcceptableCoding = p.noAcceptableCoding
	}
	p.resources[e.File] = res
	return res
}

// representation prepares f's identity response; negotiated says whether
// f is one of the representations of a negotiated page. extra fields go
// on every 200 and 304.
func (p *preparer) representation(f *static.File, negotiated bool, extra ...headerField) *representation {
	rep := &representation{file: f}
	if f.Text && len(f.Body) >= compress.MinSize {
		rep.forms = p.compressed[f]
		if rep.forms == nil {
			rep.forms = &compressedFile{compressor: &p.compressor, body: f.Body}
			p.compressed[f] = rep.forms
		}
	}
	// A negotiated page varies on both headers whatever its size, so its
	// two representations name the same ones.
	var vary string
	switch {
	case negotiated:
		vary = "Accept, Accept-Encoding"
	case rep.forms != nil:
		vary = "Accept-Encoding"
	}
	rep.fields = append(rep.fields, newHeaderField("Cache-Control", f.CacheControl), newHeaderField("X-Content-Type-Options", "nosniff"))
	if vary != "" {
		rep.fields = append(rep.fields, newHeaderField("Vary", vary))
	}
	rep.fields = append(rep.fields, extra...)
	rep.identity = rep.encode(negotiate.Identity, f.Body)
	return rep
}

// page prepares the two representations of a negotiated page and, when
// refuse406 is true, its 406 answer.
func (p *preparer) page(e static.Entry, refuse406 bool) *siteResource {
	link := newHeaderField("Link", "<"+e.TwinURL+`>; rel="alternate"; type="text/markdown"`)
	twinFields := []headerField{newHeaderField("Content-Location", e.TwinURL)}
	if e.Locale != "" {
		twinFields = append(twinFields, newHeaderField("Content-Language", "en"))
	}
	res := &siteResource{reps: []*representation{
		offerHTML:     p.representation(e.File, true, link),
		offerMarkdown: p.representation(e.Twin, true, twinFields...),
	}}
	if refuse406 {
		r := &preparedResponse{status: http.StatusNotAcceptable}
		r.body = []byte("406 Not Acceptable\n\nThis page is available as:\n" +
			"  text/html; charset=utf-8\n" +
			"  text/markdown; charset=utf-8 (also at " + e.TwinURL + ")\n" +
			"Send one of them in the Accept header, or */*.\n")
		r.set("Content-Type", "text/plain; charset=utf-8")
		r.set("Content-Length", strconv.Itoa(len(r.body)))
		r.set("Vary", "Accept")
		r.header = append(r.header, link)
		r.set("Cache-Control", static.CachePage)
		r.set("X-Content-Type-Options", "nosniff")
		res.notAcceptable = r
	}
	return res
}

// encode prepares the representation's 200 and 304 in one coding, with
// body already in that coding. Each coding has its own strong ETag: the
// file's with the coding's name appended.
func (rep *representation) encode(coding negotiate.Coding, body []byte) encoded {
	etag := rep.file.ETag
	if coding != negotiate.Identity {
		etag = strings.TrimSuffix(etag, `"`) + "." + coding.String() + `"`
	}
	e := encoded{etag: etag}
	e.ok = preparedResponse{status: http.StatusOK, body: body}
	e.ok.set("Content-Type", rep.file.ContentType)
	if coding != negotiate.Identity {
		e.ok.set("Content-Encoding", coding.String())
	}
	e.ok.set("Content-Length", strconv.Itoa(len(body)))
	e.notModified = preparedResponse{status: http.StatusNotModified}
	for _, r := range []*preparedResponse{&e.ok, &e.notModified} {
		r.set("ETag", etag)
		r.header = append(r.header, rep.fields...)
	}
	return e
}

// choose returns the coding of rep that q prefers, or nil when q accepts
// none. A client that accepts only identity never causes compression.
func (rep *representation) choose(q negotiate.Qualities) *encoded {
	if rep.forms == nil || q.Of(negotiate.Brotli)+q.Of(negotiate.Zstd)+q.Of(negotiate.Gzip) == 0 {
		if q.Of(negotiate.Identity) == 0 {
			return nil
		}
		return &rep.identity
	}
	forms := rep.encodedForms()
	if i := q.Choose(forms.codings); i >= 0 {
		return forms.forms[i]
	}
	return nil
}

// encodedForms returns the responses in every coding, building them on
// first use. Two requests may build them at once; both get equal lists
// and the later one is kept.
func (rep *representation) encodedForms() *encodedForms {
	if forms := rep.encoded.Load(); forms != nil {
		return forms
	}
	compressed := rep.forms.get()
	forms := &encodedForms{}
	for _, c := range []struct {
		coding negotiate.Coding
		body   []byte
	}{{negotiate.Brotli, compressed.Brotli}, {negotiate.Zstd, compressed.Zstd}, {negotiate.Gzip, compressed.Gzip}} {
		if c.body == nil {
			continue
		}
		e := rep.encode(c.coding, c.body)
		i := len(forms.forms)
		for i > 0 && len(forms.forms[i-1].ok.body) > len(c.body) {
			i--
		}
		forms.codings = slices.Insert(forms.codings, i, c.coding)
		forms.forms = slices.Insert(forms.forms, i, &e)
	}
	forms.codings = append(forms.codings, negotiate.Identity)
	forms.forms = append(forms.forms, &rep.identity)
	rep.encoded.Store(forms)
	return forms
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
	s.serveResource(w, r, res)
}

// serveResource answers r from res.
func (s *siteFiles) serveResource(w http.ResponseWriter, r *http.Request, res *siteResource) {
	s.answer(res, r.Header["Accept"], r.Header["Accept-Encoding"], r.Header["If-None-Match"]).write(w, r)
}

// answer is res's answer to a request with these Accept, Accept-Encoding
// and If-None-Match field lines.
func (s *siteFiles) answer(res *siteResource, accept, acceptEncoding, ifNoneMatch []string) *preparedResponse {
	rep := res.reps[0]
	if len(res.reps) > 1 {
		choice := s.chooser.Choose(accept)
		if choice < 0 {
			if res.notAcceptable != nil {
				return res.notAcceptable
			}
			choice = offerHTML
		}
		rep = res.reps[choice]
	}
	enc := rep.choose(s.encodings.Read(acceptEncoding))
	if enc == nil {
		if res.noAcceptableCoding != nil {
			return res.noAcceptableCoding
		}
		enc = &rep.identity
	}
	if len(ifNoneMatch) > 0 && static.ETagMatches(ifNoneMatch, enc.etag) {
		return &enc.notModified
	}
	return &enc.ok
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

// routeSiteFirst returns a handler that serves a GET or HEAD of a built
// file's path from s itself and passes every other request to mux. It takes
// only the paths mux would route to the site handler anyway (the "GET /"
// fallback), clean and with nothing to escape, as mux would route them
// without a redirect, so the answers are the same; it saves the mux's walk
// of its routes (and its cleaning and escaping of the path) on the requests
// most frequent. A request whose path was sent escaped (r.URL.RawPath set)
// goes through mux. The paths are checked against mux here, once, with no
// host: valid while no route names a host.
func routeSiteFirst(mux *http.ServeMux, s *siteFiles) http.Handler {
	direct := directSitePaths(mux, s)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.RawPath == "" && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
			if res := direct[r.URL.Path]; res != nil {
				s.serveResource(w, r, res)
				return
			}
		}
		mux.ServeHTTP(w, r)
	})
}

// directSitePaths returns the resources of s whose paths routeSiteFirst
// serves without the mux.
func directSitePaths(mux *http.ServeMux, s *siteFiles) map[string]*siteResource {
	direct := map[string]*siteResource{}
	for urlPath, res := range s.resources {
		if takenAsIs(urlPath) && routesToSite(mux, http.MethodGet, urlPath) && routesToSite(mux, http.MethodHead, urlPath) {
			direct[urlPath] = res
		}
	}
	return direct
}

// sitePattern is the route of handleSite in addRoutes (written there as a
// literal, as the route tests read them).
const sitePattern = "GET /"

// takenAsIs reports whether a mux routes urlPath as it is, rather than
// redirecting to its cleaned form: no "." or ".." segment, no doubled
// slash, nothing that needs escaping.
func takenAsIs(urlPath string) bool {
	clean := path.Clean(urlPath)
	if strings.HasSuffix(urlPath, "/") && clean != "/" {
		clean += "/"
	}
	return clean == urlPath && (&url.URL{Path: urlPath}).EscapedPath() == urlPath
}

// routesToSite reports whether mux sends a request with this method and
// path to the site handler.
func routesToSite(mux *http.ServeMux, method, urlPath string) bool {
	_, pattern := mux.Handler(&http.Request{Method: method, URL: &url.URL{Path: urlPath}, Host: ""})
	return pattern == sitePattern
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
