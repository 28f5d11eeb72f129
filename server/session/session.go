// Package session keeps the browser sessions of signed-in students: scs/v2
// sessions in our own database, and the small pieces other pages build on.
//
// To require a signed-in student on a page, wrap its handler, as
// server/web/routes.go does:
//
//	sessions.RequireUser(app.Home())
//
// The handler then finds the user with studyloop.UserIDFromContext. Forms
// on such pages carry sessions.CSRFToken(ctx) in a field named
// session.CSRFField, and their POST handlers are wrapped in
// sessions.RequireCSRF. Only routes wrapped in Load (RequireUser includes
// it) read or write the session cookie; other routes get no Vary: Cookie.
package session

import (
	"context"
	"crypto/subtle"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/alexedwards/scs/v2"

	"github.com/studyloop/studyloop/server/randtoken"
	"github.com/studyloop/studyloop/server/respond"
	"github.com/studyloop/studyloop/server/studyloop"
)

// CSRFField is the form field (and CSRFHeader the request header) that
// carries the CSRF token.
const (
	CSRFField  = "csrf_token"
	CSRFHeader = "X-CSRF-Token"
)

// Session keys.
const (
	keyUserID     = "user_id"
	keySignedInAt = "signed_in_at" // Unix nanoseconds
	keyCSRF       = "csrf"
)

// Options configures a Manager. A nil *Options means all defaults.
type Options struct {
	// Secure marks the cookie Secure and names it with the __Host- prefix;
	// set it whenever BASE_URL is https (default false).
	Secure bool
	// Lifetime is the absolute lifetime of a session (default 14 days).
	Lifetime time.Duration
	// IdleTimeout ends a session unused for this long (default 3 days).
	IdleTimeout time.Duration
	// Logger receives storage errors (default slog.Default()).
	Logger *slog.Logger
}

// Manager loads, saves and reads sessions.
type Manager struct {
	scs *scs.SessionManager
	// formCookie is the double-submit cookie of forms shown before sign-in.
	formCookie http.Cookie
}

// Store keeps sessions, each with the account signed in to it (0: no
// one) and when, so that all of an account's sessions can be ended at
// once (as store.DB.SetPassword does). store.DB.Sessions() implements it.
type Store interface {
	FindCtx(ctx context.Context, token string) ([]byte, bool, error)
	CommitUserCtx(ctx context.Context, token string, userID int64, signedIn time.Time, data []byte, expiry time.Time) error
	DeleteCtx(ctx context.Context, token string) error
}

// New returns a Manager keeping sessions in store.
func New(store Store, opts *Options) *Manager {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Lifetime <= 0 {
		o.Lifetime = 14 * 24 * time.Hour
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = 3 * 24 * time.Hour
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	s := scs.New()
	s.Store = userStore{store: store, codec: s.Codec}
	s.HashTokenInStore = true
	s.Lifetime = o.Lifetime
	s.IdleTimeout = o.IdleTimeout
	s.Cookie.Name = "studyloop_session"
	if o.Secure {
		s.Cookie.Name = "__Host-studyloop_session"
	}
	s.Cookie.Path = "/"
	s.Cookie.HttpOnly = true
	s.Cookie.SameSite = http.SameSiteLaxMode
	s.Cookie.Secure = o.Secure
	s.Cookie.Persist = true
	logger := o.Logger
	s.ErrorFunc = func(w http.ResponseWriter, r *http.Request, err error) {
		if r.Context().Err() != nil {
			// The session could not be saved because the request was
			// cut off: nobody is waiting for an error page.
			respond.CutOff(w)
			return
		}
		logger.Error("session", "path", r.URL.Path, "err", err)
		http.Error(w, "Internal Server Error", http.StatusInternalServerError)
	}
	formCookie := http.Cookie{Name: "studyloop_form", Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: o.Secure}
	if o.Secure {
		formCookie.Name = "__Host-studyloop_form"
	}
	return &Manager{scs: s, formCookie: formCookie}
}

// userStore adapts a Store to scs: a committed session is stored with the
// user id and sign-in time found in its data.
type userStore struct {
	store Store
	codec scs.Codec
}

func (u userStore) FindCtx(ctx context.Context, token string) ([]byte, bool, error) {
	return u.store.FindCtx(ctx, token)
}

func (u userStore) CommitCtx(ctx context.Context, token string, data []byte, expiry time.Time) error {
	_, values, err := u.codec.Decode(data)
	if err != nil {
		return err
	}
	userID, _ := values[keyUserID].(int64)
	var signedIn time.Time
	if nanos, ok := values[keySignedInAt].(int64); ok {
		signedIn = time.Unix(0, nanos)
	}
	return u.store.CommitUserCtx(ctx, token, userID, signedIn, data, expiry)
}

func (u userStore) DeleteCtx(ctx context.Context, token string) error {
	return u.store.DeleteCtx(ctx, token)
}

func (u userStore) Find(token string) ([]byte, bool, error) {
	return u.FindCtx(context.Background(), token)
}

func (u userStore) Commit(token string, data []byte, expiry time.Time) error {
	return u.CommitCtx(context.Background(), token, data, expiry)
}

func (u userStore) Delete(token string) error { return u.DeleteCtx(context.Background(), token) }

// loadedKey marks a request context in which a Manager has loaded the
// session.
type loadedKey struct{ m *Manager }

// Load loads the session before next and saves it after; it sets Vary:
// Cookie on every response it wraps. Inside another Load of the same
// Manager (RequireUser wrapping RequireCSRF) it only calls next, so that the
// session is loaded and saved, and its cookie sent, once per request.
func (m *Manager) Load(next http.Handler) http.Handler {
	key := loadedKey{m}
	loadAndSave := m.scs.LoadAndSave(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), key, true)))
	}))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Context().Value(key) != nil {
			next.ServeHTTP(w, r)
			return
		}
		loadAndSave.ServeHTTP(w, r)
	})
}

// UserID returns the signed-in student's id.
func (m *Manager) UserID(ctx context.Context) (int64, bool) {
	id, ok := m.scs.Get(ctx, keyUserID).(int64)
	return id, ok && id != 0
}

// SignIn records userID as signed in. It renews the session token first,
// so that a token planted before sign-in is useless afterwards.
func (m *Manager) SignIn(ctx context.Context, userID int64) error {
	if err := m.scs.RenewToken(ctx); err != nil {
		return err
	}
	m.scs.Put(ctx, keyUserID, userID)
	m.scs.Put(ctx, keySignedInAt, time.Now().UnixNano())
	m.scs.Remove(ctx, keyCSRF)
	return nil
}

// SignOut ends the session and everything in it.
func (m *Manager) SignOut(ctx context.Context) error { return m.scs.Destroy(ctx) }

// PutString stores a value in the session.
func (m *Manager) PutString(ctx context.Context, key, value string) { m.scs.Put(ctx, key, value) }

// PopString returns a value from the session and removes it; "" when absent.
func (m *Manager) PopString(ctx context.Context, key string) string {
	return m.scs.PopString(ctx, key)
}

// GetString returns a value from the session; "" when absent.
func (m *Manager) GetString(ctx context.Context, key string) string {
	return m.scs.GetString(ctx, key)
}

// RequireUser loads the session and passes requests from signed-in students
// to next, with the user id in the context (studyloop.UserIDFromContext).
// Others are sent to /signin, which brings them back afterwards: GET and
// HEAD to the same URL, other methods to the same path. The URL is the one
// the browser asked for (Request.RequestURI), also where routes passed the
// request on under another path (the German app does).
func (m *Manager) RequireUser(next http.Handler) http.Handler {
	return m.Load(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, ok := m.UserID(r.Context())
		if !ok {
			back := r.RequestURI
			if back == "" || back[0] != '/' {
				back = r.URL.RequestURI()
			}
			if r.Method != http.MethodGet && r.Method != http.MethodHead {
				back, _, _ = strings.Cut(back, "?")
			}
			http.Redirect(w, r, SignInURL(back), http.StatusSeeOther)
			return
		}
		next.ServeHTTP(w, r.WithContext(studyloop.ContextWithUserID(r.Context(), id)))
	}))
}

// SignInURL is the sign-in page's address that returns to next afterwards.
func SignInURL(next string) string {
	return "/signin?" + url.Values{"next": {next}}.Encode()
}

// CSRFToken returns the session's CSRF token, creating it on first use.
// The session must be loaded.
func (m *Manager) CSRFToken(ctx context.Context) string {
	if tok := m.scs.GetString(ctx, keyCSRF); tok != "" {
		return tok
	}
	tok := randtoken.New()
	m.scs.Put(ctx, keyCSRF, tok)
	return tok
}

// ValidCSRF reports whether the request carries the session's CSRF token,
// in the form field CSRFField or the header CSRFHeader. The comparison takes
// constant time. The session must be loaded.
func (m *Manager) ValidCSRF(r *http.Request) bool {
	got := r.Header.Get(CSRFHeader)
	if got == "" && r.ParseForm() == nil {
		// ParseForm reads URL-encoded bodies only: a multipart body is
		// parsed (into temporary files) by the upload routes alone, before
		// this check, and never here.
		got = r.PostForm.Get(CSRFField)
	}
	return m.CSRFTokenMatches(r.Context(), got)
}

// CSRFTokenMatches reports whether token is the session's CSRF token, in
// constant time. The session must be loaded.
func (m *Manager) CSRFTokenMatches(ctx context.Context, token string) bool {
	want := m.scs.GetString(ctx, keyCSRF)
	return want != "" && token != "" && subtle.ConstantTimeCompare([]byte(token), []byte(want)) == 1
}

// RequireCSRF loads the session (unless an enclosing RequireUser or Load
// has) and answers 403 to POST, PUT, PATCH and DELETE requests without the
// session's CSRF token.
func (m *Manager) RequireCSRF(next http.Handler) http.Handler {
	return m.Load(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
		default:
			if !m.ValidCSRF(r) {
				http.Error(w, "The form has expired. Go back, reload the page and try again.", http.StatusForbidden)
				return
			}
		}
		next.ServeHTTP(w, r)
	}))
}

// The sign-in and sign-up forms are shown to visitors without a session,
// and keeping their CSRF token in one would store a session row for every
// anonymous page view. They use a double-submit cookie instead: a random
// token in a cookie of its own (SameSite=Lax, so a cross-site form post
// does not carry it; with the __Host- prefix under https, so no other host
// can plant one), repeated in the form. Nothing is stored on the server
// until someone signs in.

// AnonymousCSRFToken returns the token for a form shown before sign-in:
// the one in the request's form cookie, or a new one set in that cookie
// on w (for the browser session).
func (m *Manager) AnonymousCSRFToken(w http.ResponseWriter, r *http.Request) string {
	if c, err := r.Cookie(m.formCookie.Name); err == nil && randtoken.WellFormed(c.Value) {
		return c.Value
	}
	c := m.formCookie
	c.Value = randtoken.New()
	http.SetCookie(w, &c)
	return c.Value
}

// ValidAnonymousCSRF reports whether the request's form field CSRFField (or
// header CSRFHeader) repeats its form cookie's token, in constant time.
func (m *Manager) ValidAnonymousCSRF(r *http.Request) bool {
	c, err := r.Cookie(m.formCookie.Name)
	if err != nil || !randtoken.WellFormed(c.Value) {
		return false
	}
	got := r.Header.Get(CSRFHeader)
	if got == "" && r.ParseForm() == nil {
		got = r.PostForm.Get(CSRFField)
	}
	return subtle.ConstantTimeCompare([]byte(got), []byte(c.Value)) == 1
}

// SafeNext returns next when it is a path on this site, and fallback
// otherwise, so that ?next= cannot send anyone elsewhere.
func SafeNext(next, fallback string) string {
	if next == "" || next[0] != '/' || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\r\n\t") {
		return fallback
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" {
		return fallback
	}
	return next
}

// Sensitive sets the headers of pages that handle credentials or consent:
// they may not be framed (clickjacking), cached or leak their URL as a
// referrer. Cache-Control stays no-store even when the session is saved
// inside next: scs adds no-cache="Set-Cookie" whenever it sends the
// cookie, and a cache reading that value alone could store the page.
func Sensitive(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cache-Control", "no-store")
		h.Set("Referrer-Policy", "no-referrer")
		next.ServeHTTP(&noStoreWriter{ResponseWriter: w}, r)
	})
}

// noStoreWriter resets Cache-Control to no-store as the response header is
// written, whatever was added to it before.
type noStoreWriter struct {
	http.ResponseWriter
	wrote bool
}

func (w *noStoreWriter) WriteHeader(code int) {
	if !w.wrote && code >= 200 {
		w.wrote = true
		w.Header().Set("Cache-Control", "no-store")
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *noStoreWriter) Write(p []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *noStoreWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
