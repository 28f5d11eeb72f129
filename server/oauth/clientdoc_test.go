package oauth

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/studyloop/studyloop/server/config"
	"github.com/studyloop/studyloop/server/store/storetest"
	"github.com/studyloop/studyloop/server/studyloop"
)

func TestCheckClientIDURL(t *testing.T) {
	tests := []struct {
		url  string
		want string // part of the problem; "" for acceptable
	}{
		{"https://app.example/oauth/client.json", ""},
		{"https://app.example:8443/client", ""},
		{"https://app.example/client?v=2", ""},
		{"https://127.0.0.1/client.json", ""}, // the fetcher judges addresses
		{"https://app.example", "must have a path"},
		{"https://app.example/", "must have a path"},
		{"http://app.example/client.json", "must start with https://"},
		{"HTTPS://app.example/client.json", "must start with https://"},
		{"https:app.example/client.json", "must start with https://"},
		{"https://app.example/client.json#x", "fragment"},
		{"https://user:pw@app.example/client.json", "user information"},
		{"https://user@app.example/client.json", "user information"},
		{"https://app.example/a/../client.json", ". or .. path segments"},
		{"https://app.example/./client.json", ". or .. path segments"},
		{"https://app.example/a/%2e%2e/client.json", ". or .. path segments"},
		{"https://app.example/a b", "spaces, control or non-ASCII"},
		{"https://\u0430pp.example/client.json", "spaces, control or non-ASCII"},
		{"https:///client.json", "no valid host"},
		{"https://:443/client.json", "no valid host"},
		{"https://app.example/" + strings.Repeat("a", maxClientIDURLBytes-len("https://app.example/")), ""},
		{"https://app.example/" + strings.Repeat("a", maxClientIDURLBytes-len("https://app.example/")+1), "longer than 2000 bytes"},
	}
	for _, tt := range tests {
		got := checkClientIDURL(tt.url)
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("checkClientIDURL(%.60q) = %q, want %q", tt.url, got, tt.want)
		}
	}
	for id, want := range map[string]bool{
		"https://app.example/c": true, "HTTP://app.example/c": true, "slc_ABC": false, "": false, "httpx://a/b": false,
	} {
		if got := isClientIDURL(id); got != want {
			t.Errorf("isClientIDURL(%q) = %v, want %v", id, got, want)
		}
	}
}

func TestParseClientDocument(t *testing.T) {
	const id = "https://app.example/client.json"
	tests := []struct {
		name, doc, want string // want: part of the problem, "" for acceptable
	}{
		{"minimal", `{"client_id":"` + id + `","redirect_uris":["http://127.0.0.1/callback"]}`, ""},
		{"full", `{"client_id":"` + id + `","client_name":"App","client_uri":"https://app.example","redirect_uris":["https://app.example/cb","http://localhost/cb"],
			"grant_types":["authorization_code","refresh_token"],"response_types":["code"],"token_endpoint_auth_method":"none","application_type":"native"}`, ""},
		{"client_id of another document", `{"client_id":"https://app.example/other.json","redirect_uris":["https://app.example/cb"]}`, "is not the document's own URL"},
		{"client_id spelled differently", `{"client_id":"https://APP.example/client.json","redirect_uris":["https://app.example/cb"]}`, "is not the document's own URL"},
		{"client_id with a trailing slash", `{"client_id":"` + id + `/","redirect_uris":["https://app.example/cb"]}`, "is not the document's own URL"},
		{"no client_id", `{"redirect_uris":["https://app.example/cb"]}`, "is not the document's own URL"},
		{"client secret", `{"client_id":"` + id + `","client_secret":"s","redirect_uris":["https://app.example/cb"]}`, "client secret"},
		{"secret expiry", `{"client_id":"` + id + `","client_secret_expires_at":0,"redirect_uris":["https://app.example/cb"]}`, "client secret"},
		{"secret method", `{"client_id":"` + id + `","token_endpoint_auth_method":"client_secret_basic","redirect_uris":["https://app.example/cb"]}`, "must be \"none\""},
		{"private_key_jwt", `{"client_id":"` + id + `","token_endpoint_auth_method":"private_key_jwt","redirect_uris":["https://app.example/cb"]}`, "must be \"none\""},
		{"no redirect URIs", `{"client_id":"` + id + `"}`, "redirect_uris is required"},
		{"remote http redirect", `{"client_id":"` + id + `","redirect_uris":["http://app.example/cb"]}`, "loopback host"},
		{"implicit grant", `{"client_id":"` + id + `","grant_types":["implicit"],"redirect_uris":["https://app.example/cb"]}`, "not supported"},
		{"control character in the name", `{"client_id":"` + id + `","client_name":"A\u202eB","redirect_uris":["https://app.example/cb"]}`, "control or formatting"},
		{"not an object", `["` + id + `"]`, "is not one JSON object"},
		{"two objects", `{"client_id":"` + id + `","redirect_uris":["https://app.example/cb"]} {}`, "has more after"},
		{"HTML", `<html></html>`, "is not one JSON object"},
	}
	for _, tt := range tests {
		client, problem := parseClientDocument(id, []byte(tt.doc))
		switch {
		case tt.want == "" && (problem != "" || client == nil || client.ID != id || len(client.RedirectURIs) == 0):
			t.Errorf("%s: %+v, %q; want a client", tt.name, client, problem)
		case tt.want != "" && (client != nil || !strings.Contains(problem, tt.want)):
			t.Errorf("%s: %+v, %q; want a problem saying %q", tt.name, client, problem, tt.want)
		}
	}
}

func TestDocumentTTL(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	date := now.Add(-time.Minute).Format(http.TimeFormat) // the server's clock a minute behind
	tests := []struct {
		header []string // name, value pairs
		want   time.Duration
	}{
		{nil, defaultDocumentTTL},
		{[]string{"Cache-Control", "public"}, defaultDocumentTTL},
		{[]string{"Cache-Control", "max-age=300"}, 5 * time.Minute},
		{[]string{"Cache-Control", "public, max-age=3600"}, time.Hour},
		{[]string{"Cache-Control", "MAX-AGE=120"}, 2 * time.Minute},
		{[]string{"Cache-Control", `max-age="120"`}, 2 * time.Minute},
		{[]string{"Cache-Control", "max-age=60"}, time.Minute},       // the lower bound itself
		{[]string{"Cache-Control", "max-age=59"}, minDocumentTTL},    // raised to it
		{[]string{"Cache-Control", "max-age=0"}, minDocumentTTL},     // raised to it
		{[]string{"Cache-Control", "no-cache"}, minDocumentTTL},      // revalidate: kept for the least time
		{[]string{"Cache-Control", "max-age=86400"}, 24 * time.Hour}, // the upper bound itself
		{[]string{"Cache-Control", "max-age=86401"}, maxDocumentTTL}, // lowered to it
		{[]string{"Cache-Control", "max-age=99999999999999"}, maxDocumentTTL},
		{[]string{"Cache-Control", "max-age=-5"}, defaultDocumentTTL},  // invalid: ignored
		{[]string{"Cache-Control", "max-age=abc"}, defaultDocumentTTL}, // invalid: ignored
		{[]string{"Cache-Control", "no-store"}, 0},
		{[]string{"Cache-Control", "max-age=600, no-store"}, 0},
		{[]string{"Cache-Control", "public", "Cache-Control", "no-store"}, 0}, // in a second header line
		// Expires counts from the answer's Date, or from now without one.
		{[]string{"Date", date, "Expires", now.Add(29 * time.Minute).Format(http.TimeFormat)}, 30 * time.Minute},
		{[]string{"Expires", now.Add(30 * time.Minute).Format(http.TimeFormat)}, 30 * time.Minute},
		{[]string{"Expires", now.Add(48 * time.Hour).Format(http.TimeFormat)}, maxDocumentTTL},
		{[]string{"Expires", now.Add(-time.Hour).Format(http.TimeFormat)}, minDocumentTTL},
		{[]string{"Expires", "0"}, minDocumentTTL}, // invalid: already expired
		{[]string{"Cache-Control", "max-age=300", "Expires", now.Add(time.Hour).Format(http.TimeFormat)}, 5 * time.Minute},
		{[]string{"Cache-Control", "no-store", "Expires", now.Add(time.Hour).Format(http.TimeFormat)}, 0},
	}
	for _, tt := range tests {
		h := http.Header{}
		for i := 0; i < len(tt.header); i += 2 {
			h.Add(tt.header[i], tt.header[i+1])
		}
		if got := documentTTL(h, now); got != tt.want {
			t.Errorf("documentTTL(%q) = %v, want %v", tt.header, got, tt.want)
		}
	}
}

func TestDocumentCacheBound(t *testing.T) {
	var c documentCache
	now := time.Now()
	for i := range maxCachedDocuments {
		c.put(studyloop.OAuthClient{ID: "https://a.example/" + strconv.Itoa(i)}, now, now.Add(time.Hour+time.Duration(i)*time.Second))
	}
	c.put(studyloop.OAuthClient{ID: "https://a.example/new"}, now, now.Add(time.Hour))
	if len(c.entries) != maxCachedDocuments {
		t.Fatalf("%d entries, want %d", len(c.entries), maxCachedDocuments)
	}
	if _, ok := c.get("https://a.example/0", now); ok {
		t.Fatal("the entry expiring soonest should have made room")
	}
	if _, ok := c.get("https://a.example/new", now); !ok {
		t.Fatal("the new entry is missing")
	}
	if _, ok := c.get("https://a.example/new", now.Add(time.Hour)); ok {
		t.Fatal("an entry is served at its expiry")
	}
}

// TestMetadataClient fetches documents from a real HTTPS server on
// loopback (the test switch) into a real database: cached by their
// headers, saved for grants, and limited per requester.
func TestMetadataClient(t *testing.T) {
	db := storetest.Open(t, "sqlite")
	cfg, err := config.FromEnv(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	var fetches atomic.Int64
	var name atomic.Value
	name.Store("Agent")
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetches.Add(1)
		id := "https://" + r.Host + r.URL.Path
		if strings.HasPrefix(r.URL.Path, "/nostore/") {
			w.Header().Set("Cache-Control", "no-store")
		} else {
			w.Header().Set("Cache-Control", "max-age=120")
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"client_id":"` + id + `","client_name":"` + name.Load().(string) + `","redirect_uris":["http://127.0.0.1/callback"]}`))
	}))
	t.Cleanup(srv.Close)
	s := New(db, nil, cfg, &Options{ClientMetadataTestRoots: testRoots(srv)})
	clock := time.Now().Truncate(time.Second)
	s.now = func() time.Time { return clock }
	ctx := context.Background()

	id := srv.URL + "/client.json"
	c, err := s.metadataClient(ctx, "198.51.100.7", id)
	if err != nil {
		t.Fatal(err)
	}
	if c.ID != id || c.Name != "Agent" || !slices.Equal(c.RedirectURIs, []string{"http://127.0.0.1/callback"}) {
		t.Fatalf("client %+v", c)
	}
	if stored, err := db.OAuthClient(ctx, id); err != nil || stored.Name != "Agent" {
		t.Fatalf("stored client %+v, %v", stored, err)
	}

	// Cached for max-age=120: a changed document is seen only after it.
	name.Store("Renamed")
	clock = clock.Add(119 * time.Second)
	if c, err := s.metadataClient(ctx, "198.51.100.7", id); err != nil || c.Name != "Agent" || fetches.Load() != 1 {
		t.Fatalf("within max-age: %+v, %v, %d fetches", c, err, fetches.Load())
	}
	clock = clock.Add(time.Second)
	if c, err := s.metadataClient(ctx, "198.51.100.7", id); err != nil || c.Name != "Renamed" || fetches.Load() != 2 {
		t.Fatalf("at max-age: %+v, %v, %d fetches", c, err, fetches.Load())
	}

	// no-store: fetched every time.
	for range 2 {
		if _, err := s.metadataClient(ctx, "198.51.100.7", srv.URL+"/nostore/client.json"); err != nil {
			t.Fatal(err)
		}
	}
	if fetches.Load() != 4 {
		t.Fatalf("%d fetches, want 4 (no-store is fetched each time)", fetches.Load())
	}

	// The per-requester limit: 30 fetches at once, then one per 30 s.
	const requester = "203.0.113.5"
	before := fetches.Load()
	for i := range documentFetchBurst {
		if _, err := s.metadataClient(ctx, requester, srv.URL+"/nostore/"+strconv.Itoa(i)); err != nil {
			t.Fatalf("fetch %d: %v", i+1, err)
		}
	}
	_, err = s.metadataClient(ctx, requester, srv.URL+"/nostore/over")
	if derr, ok := err.(*documentError); !ok || derr.retryAfter != time.Hour/documentFetchesPerHour {
		t.Fatalf("fetch %d: %v, want the limit with a retry after %v", documentFetchBurst+1, err, time.Hour/documentFetchesPerHour)
	}
	if got := fetches.Load() - before; got != documentFetchBurst {
		t.Fatalf("%d fetches, want %d (the refused one must not fetch)", got, documentFetchBurst)
	}
	if _, err := s.metadataClient(ctx, requester, id); err != nil {
		t.Fatalf("a cached document is served over the limit: %v", err)
	}
	if _, err := s.metadataClient(ctx, "198.51.100.8", srv.URL+"/nostore/other"); err != nil {
		t.Fatalf("another requester: %v", err)
	}

	// Refused URLs and documents are not saved.
	for _, bad := range []string{"https://app.example", srv.URL + "/nostore/../x"} {
		if _, err := s.metadataClient(ctx, "198.51.100.9", bad); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}
