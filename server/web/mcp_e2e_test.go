package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/oauth2"

	"github.com/studyloop/studyloop/build"
	"github.com/studyloop/studyloop/server/engine"
	"github.com/studyloop/studyloop/server/mcp"
	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/store/storetest"
	"github.com/studyloop/studyloop/server/worker"
)

// studyNotes is a short handout the offline generator makes questions of.
const studyNotes = `# Optics

## Refraction

Refraction is the bending of light as it passes from one medium into another. The refractive index of a medium is the ratio of the speed of light in a vacuum to its speed in that medium. Snell's law relates the angles of incidence and refraction to the refractive indices of the two media.

## Lenses

A converging lens brings parallel rays of light to a focus at its focal point. A diverging lens spreads parallel rays out so that they appear to come from a virtual focal point. The power of a lens is measured in dioptres and equals the reciprocal of its focal length in metres.

## Total internal reflection

Total internal reflection happens when light meets a boundary with a medium of lower refractive index at an angle greater than the critical angle. Optical fibres carry light over long distances by total internal reflection.
`

// mcpAccessToken runs the OAuth flow as a new student with a registered
// client and returns an access token bound to /mcp.
func mcpAccessToken(t testing.TB, s *authServer, email string) string {
	t.Helper()
	conf := s.oauthConfig(s.register(t, "http://127.0.0.1/callback"))
	authURL, verifier := pkceAuthURL(conf, "state", oauth2.SetAuthURLParam("resource", s.base+"/mcp"))
	b := newBrowser(t, s)
	b.signUp(t, "", email, "correct horse battery staple")
	back := b.approve(t, authURL)
	tok, err := conf.Exchange(t.Context(), back.Query().Get("code"), oauth2.VerifierOption(verifier), oauth2.SetAuthURLParam("resource", s.base+"/mcp"))
	if err != nil {
		t.Fatalf("token exchange: %v", err)
	}
	return tok.AccessToken
}

// recordingTransport adds the bearer token and remembers what the client
// sent and got, to check the transport from the client's side.
type recordingTransport struct {
	token string
	mu    sync.Mutex
	seen  []string // "METHOD status MCP-Protocol-Version"
}

func (rt *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+rt.token)
	res, err := http.DefaultTransport.RoundTrip(req)
	if err == nil {
		rt.mu.Lock()
		rt.seen = append(rt.seen, strings.TrimSpace(req.Method+" "+http.StatusText(res.StatusCode)+" "+req.Header.Get("MCP-Protocol-Version")))
		if res.Header.Get("Mcp-Session-Id") != "" {
			rt.seen = append(rt.seen, "SESSION ID SENT")
		}
		rt.mu.Unlock()
	}
	return res, err
}

// connectMCP connects the go-sdk client to the server's /mcp with a token,
// asking for the given protocol version: 2026-07-28, the client's default,
// probes server/discover; a 2025 version starts with initialize.
func connectMCP(t *testing.T, s *authServer, token, version string) (*sdk.ClientSession, *recordingTransport) {
	t.Helper()
	rt := &recordingTransport{token: token}
	client := sdk.NewClient(&sdk.Implementation{Name: "studyloop-e2e", Version: "1.0.0"}, nil)
	cs, err := client.Connect(t.Context(), &sdk.StreamableClientTransport{
		Endpoint:   s.base + "/mcp",
		HTTPClient: &http.Client{Transport: rt},
		MaxRetries: -1,
	}, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, rt
}

// callJSON calls a tool and decodes its structured result, which must
// equal its text content.
func callJSON[T any](t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) (T, *sdk.CallToolResult) {
	t.Helper()
	var out T
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		return out, res
	}
	structured, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(*sdk.TextContent).Text
	var a, b any
	json.Unmarshal(structured, &a)
	json.Unmarshal([]byte(text), &b)
	if !jsonEqual(a, b) {
		t.Fatalf("%s: structured %s, text %s", name, structured, text)
	}
	if err := json.Unmarshal(structured, &out); err != nil {
		t.Fatal(err)
	}
	return out, res
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func toolErrorText(t *testing.T, res *sdk.CallToolResult) string {
	t.Helper()
	if res == nil || !res.IsError {
		t.Fatalf("want a tool error, got %+v", res)
	}
	return res.Content[0].(*sdk.TextContent).Text
}

// TestMCPEndToEnd drives /mcp with the official go-sdk client through the
// real OAuth flow and a real worker, once in MCP 2026-07-28 (the client
// probes server/discover) and once forced to 2025-11-25 (initialize):
// tools/list, create_study, polling get_study_status until ready,
// list_studies, get_mastery; and checks that a second student's token sees
// nothing of the first's.
func TestMCPEndToEnd(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		s := startAuthServer(t, db, nil)
		startWorkers(t, db)
		for _, version := range []string{"2026-07-28", "2025-11-25"} {
			t.Run(version, func(t *testing.T) { testMCPEndToEnd(t, s, version) })
		}
	})
}

func testMCPEndToEnd(t *testing.T, s *authServer, version string) {
	aliceToken := mcpAccessToken(t, s, "alice-"+version+"@example.com")
	bobToken := mcpAccessToken(t, s, "bob-"+version+"@example.com")

	alice, seen := connectMCP(t, s, aliceToken, version)
	init := alice.InitializeResult()
	card, err := mcp.ReadServerCard(build.Site())
	if err != nil {
		t.Fatal(err)
	}
	if init.ProtocolVersion != version || init.Capabilities.Tools == nil {
		t.Fatalf("connect: version %q, capabilities %+v; want %s", init.ProtocolVersion, init.Capabilities, version)
	}
	if si := init.ServerInfo; si.Name != card.Name || si.Version != card.Version || si.Title != card.Title || si.WebsiteURL != s.base+"/" {
		t.Errorf("serverInfo %+v, server card %+v, want websiteUrl %s/", si, card, s.base)
	}

	tools, err := alice.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
		if tool.OutputSchema == nil || tool.Annotations == nil {
			t.Errorf("%s lacks an output schema or annotations", tool.Name)
		}
	}
	slices.Sort(names)
	if strings.Join(names, ",") != "create_study,get_mastery,get_study_status,list_studies" {
		t.Fatalf("tools %v", names)
	}

	type created struct {
		StudyID string `json:"study_id"`
		Status  string `json:"status"`
	}
	st, _ := callJSON[created](t, alice, "create_study", map[string]any{"text": studyNotes, "title": "Optics"})
	if st.Status != "uploaded" {
		t.Fatalf("create_study: %+v", st)
	}

	type status struct {
		StudyID       string `json:"study_id"`
		Status        string `json:"status"`
		Title         string `json:"title"`
		TopicCount    int    `json:"topic_count"`
		QuestionCount int    `json:"question_count"`
		Reason        string `json:"reason"`
	}
	var got status
	deadline := time.Now().Add(90 * time.Second)
	for {
		got, _ = callJSON[status](t, alice, "get_study_status", map[string]any{"study_id": st.StudyID})
		if got.Status == "ready" || got.Status == "failed" || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if got.Status != "ready" || got.TopicCount == 0 || got.QuestionCount == 0 || got.Title != "Optics" {
		t.Fatalf("study after processing: %+v", got)
	}

	type list struct {
		Studies []status `json:"studies"`
	}
	studies, _ := callJSON[list](t, alice, "list_studies", map[string]any{"status": "ready"})
	if len(studies.Studies) != 1 || studies.Studies[0].StudyID != st.StudyID {
		t.Fatalf("list_studies: %+v", studies)
	}

	type mastery struct {
		Study *struct {
			Topics []struct {
				Topic string  `json:"topic"`
				Score float64 `json:"score"`
			} `json:"topics"`
		} `json:"study"`
		Overall *struct {
			Questions int `json:"questions"`
		} `json:"overall"`
		Studies []struct {
			StudyID string `json:"study_id"`
		} `json:"studies"`
	}
	m, _ := callJSON[mastery](t, alice, "get_mastery", map[string]any{"study_id": st.StudyID})
	if m.Study == nil || len(m.Study.Topics) != got.TopicCount {
		t.Fatalf("get_mastery: %+v, want %d topics", m.Study, got.TopicCount)
	}
	sum, _ := callJSON[mastery](t, alice, "get_mastery", map[string]any{})
	if sum.Overall == nil || sum.Overall.Questions != got.QuestionCount || len(sum.Studies) != 1 {
		t.Fatalf("get_mastery summary: %+v", sum)
	}

	// The second student sees nothing of the first's.
	bob, _ := connectMCP(t, s, bobToken, version)
	if l, _ := callJSON[list](t, bob, "list_studies", map[string]any{}); len(l.Studies) != 0 {
		t.Errorf("bob lists %d studies", len(l.Studies))
	}
	if _, res := callJSON[status](t, bob, "get_study_status", map[string]any{"study_id": st.StudyID}); !strings.Contains(toolErrorText(t, res), "not found") {
		t.Errorf("bob reads alice's study status")
	}
	if _, res := callJSON[mastery](t, bob, "get_mastery", map[string]any{"study_id": st.StudyID}); !strings.Contains(toolErrorText(t, res), "not found") {
		t.Errorf("bob reads alice's mastery")
	}
	if sum, _ := callJSON[mastery](t, bob, "get_mastery", map[string]any{}); len(sum.Studies) != 0 || sum.Overall.Questions != 0 {
		t.Errorf("bob's summary: %+v", sum)
	}

	// A wrong token gets 401 with the challenge; the client reports it.
	client := sdk.NewClient(&sdk.Implementation{Name: "intruder", Version: "1"}, nil)
	_, err = client.Connect(t.Context(), &sdk.StreamableClientTransport{
		Endpoint: s.base + "/mcp", HTTPClient: &http.Client{Transport: &recordingTransport{token: "forged"}}, MaxRetries: -1,
	}, nil)
	if err == nil || !strings.Contains(err.Error(), "Unauthorized") {
		t.Errorf("connect with a forged token: %v", err)
	}

	// In 2026-07-28 every exchange was a POST answered 200 under that
	// version, server/discover first; forced to 2025-11-25, the client
	// sent initialize (no version header yet), its notification was
	// accepted and its GET for an SSE stream got 405. No session id was
	// ever sent.
	seen.mu.Lock()
	defer seen.mu.Unlock()
	if version == "2026-07-28" {
		for _, x := range seen.seen {
			if x != "POST OK 2026-07-28" {
				t.Errorf("client exchanges %v: want only POSTs answered 200 at 2026-07-28", seen.seen)
				break
			}
		}
	} else {
		if len(seen.seen) < 4 || seen.seen[0] != "POST OK" {
			t.Errorf("client exchanges %v: want initialize first", seen.seen)
		}
		if !slices.Contains(seen.seen, "GET Method Not Allowed "+version) || !slices.Contains(seen.seen, "POST Accepted "+version) {
			t.Errorf("client exchanges %v: want the SSE GET refused and notifications accepted", seen.seen)
		}
	}
	if slices.Contains(seen.seen, "SESSION ID SENT") {
		t.Error("the server sent an Mcp-Session-Id")
	}
}

// startWorkers runs the study workers with the offline generator until the
// test ends.
func startWorkers(t *testing.T, db *store.DB) {
	t.Helper()
	gen, err := engine.NewOffline(nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	pool := worker.New(db, gen, slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
	done := make(chan error, 1)
	go func() { done <- pool.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("workers: %v", err)
		}
	})
}

// TestMCPIdentityAgrees compares the server's name, version and protocol
// versions across the built server card, the AI catalog, openapi.json and
// initialize.
func TestMCPIdentityAgrees(t *testing.T) {
	site := build.Site()
	read := func(name string, v any) {
		data, err := fs.ReadFile(site, name)
		if err != nil {
			t.Fatalf("%s: %v (run make site)", name, err)
		}
		if err := json.Unmarshal(data, v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	info, err := mcp.ReadServerCard(site)
	if err != nil {
		t.Fatal(err)
	}
	var card mcp.ServerCard
	read(mcp.ServerCardPath, &card)
	var catalog struct {
		SpecVersion string `json:"specVersion"`
		Host        struct {
			DisplayName string `json:"displayName"`
			Identifier  string `json:"identifier"`
		} `json:"host"`
		Entries []struct {
			Identifier, Type, URL string
		} `json:"entries"`
	}
	read(mcp.AICatalogPath, &catalog)
	var openapi struct {
		Info struct {
			Title, Version string
		} `json:"info"`
		Components struct {
			Parameters map[string]struct {
				Schema struct {
					Enum []string `json:"enum"`
				} `json:"schema"`
			} `json:"parameters"`
		} `json:"components"`
	}
	read("openapi.json", &openapi)

	if catalog.SpecVersion != "1.0" || len(catalog.Entries) != 1 {
		t.Fatalf("catalog: %+v", catalog)
	}
	entry := catalog.Entries[0]
	if entry.Type != mcp.ServerCardType || entry.URL != build.Placeholder+"/mcp/server-card" {
		t.Errorf("catalog entry %+v", entry)
	}
	// urn:air:{publisher}:mcp:{name}, from the card's reverse-DNS name.
	publisher, name, _ := strings.Cut(card.Name, "/")
	if entry.Identifier != "urn:air:"+publisher+":mcp:"+name {
		t.Errorf("catalog identifier %q does not name %q", entry.Identifier, card.Name)
	}
	if catalog.Host.DisplayName != card.Title || openapi.Info.Title != card.Title || info.Title != card.Title {
		t.Errorf("titles: catalog %q, openapi %q, initialize %q, card %q", catalog.Host.DisplayName, openapi.Info.Title, info.Title, card.Title)
	}
	if openapi.Info.Version != card.Version || info.Version != card.Version || info.Name != card.Name {
		t.Errorf("versions: openapi %q, initialize %q (%s), card %q (%s)", openapi.Info.Version, info.Version, info.Name, card.Version, card.Name)
	}
	versions := card.Remotes[0].SupportedProtocolVersions
	if got := openapi.Components.Parameters["MCPProtocolVersion"].Schema.Enum; !slices.Equal(got, versions) || !slices.Equal(versions, mcp.ProtocolVersions) {
		t.Errorf("protocol versions: openapi %v, card %v, server %v", got, versions, mcp.ProtocolVersions)
	}
	if card.Remotes[0].Type != "streamable-http" || card.Remotes[0].URL != build.Placeholder+"/mcp" {
		t.Errorf("card remote %+v", card.Remotes[0])
	}
}

// TestMCPRoutes checks the MCP rules that depend on the real wiring: the
// bearer check, the connect page at GET /mcp, and the discovery documents.
func TestMCPRoutes(t *testing.T) {
	s := startAuthServer(t, storetest.Open(t, "sqlite"), nil)
	do := func(method, path string, header map[string]string) (*http.Response, string) {
		t.Helper()
		req, err := http.NewRequest(method, s.base+path, strings.NewReader(header["body"]))
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range header {
			switch k {
			case "body":
			case "Host":
				req.Host = v
			default:
				req.Header.Set(k, v)
			}
		}
		res, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res, string(body)
	}
	ping := map[string]string{"Content-Type": "application/json", "body": `{"jsonrpc":"2.0","id":1,"method":"ping"}`}

	t.Run("POST without a token", func(t *testing.T) {
		res, _ := do("POST", "/mcp", map[string]string{"Content-Type": "application/json", "Origin": s.base, "body": ping["body"]})
		if res.StatusCode != 401 || !strings.Contains(res.Header.Get("WWW-Authenticate"), `resource_metadata="`+s.base+"/.well-known/oauth-protected-resource") {
			t.Fatalf("status %d, WWW-Authenticate %q", res.StatusCode, res.Header.Get("WWW-Authenticate"))
		}
		if !strings.Contains(res.Header.Get("Access-Control-Expose-Headers"), "WWW-Authenticate") {
			t.Errorf("Access-Control-Expose-Headers %q", res.Header.Get("Access-Control-Expose-Headers"))
		}
	})
	t.Run("POST from a rebound host", func(t *testing.T) {
		for _, h := range []map[string]string{{"Host": "evil.example"}, {"Origin": "http://evil.example"}} {
			h["Content-Type"], h["body"] = "application/json", ping["body"]
			if res, _ := do("POST", "/mcp", h); res.StatusCode != 403 {
				t.Errorf("%v: status %d, want 403", h, res.StatusCode)
			}
		}
	})
	t.Run("preflight", func(t *testing.T) {
		res, _ := do("OPTIONS", "/mcp", map[string]string{"Origin": s.base, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization, mcp-protocol-version"})
		if res.StatusCode != 204 || !strings.Contains(res.Header.Get("Access-Control-Allow-Headers"), "MCP-Protocol-Version") {
			t.Fatalf("status %d, allow headers %q", res.StatusCode, res.Header.Get("Access-Control-Allow-Headers"))
		}
	})
	t.Run("GET and DELETE", func(t *testing.T) {
		tests := []struct {
			method, accept, wantType string
			wantStatus               int
		}{
			{"GET", "text/html,application/xhtml+xml,*/*;q=0.8", "text/html", 200},
			{"GET", "text/markdown", "text/markdown", 200},
			{"GET", "application/json", "text/html", 200},
			{"GET", "text/event-stream", "", 405},
			{"GET", "application/json, text/event-stream", "", 405},
			{"DELETE", "", "", 405},
		}
		// A 2026-07-28 client's GET names its version; without text/html
		// in Accept it is the transport, refused like the SSE GET.
		for _, accept := range []string{"application/json", "", "*/*"} {
			res, _ := do("GET", "/mcp", map[string]string{"Accept": accept, "MCP-Protocol-Version": "2026-07-28"})
			if res.StatusCode != 405 || res.Header.Get("Allow") != "POST" {
				t.Errorf("2026 GET Accept %q: status %d, Allow %q; want 405 and POST", accept, res.StatusCode, res.Header.Get("Allow"))
			}
		}
		if res, _ := do("GET", "/mcp", map[string]string{"Accept": "text/html", "MCP-Protocol-Version": "2026-07-28"}); res.StatusCode != 200 {
			t.Errorf("GET naming text/html with a version header: status %d, want the connect page", res.StatusCode)
		}
		for _, tt := range tests {
			res, _ := do(tt.method, "/mcp", map[string]string{"Accept": tt.accept})
			if res.StatusCode != tt.wantStatus || !strings.HasPrefix(res.Header.Get("Content-Type"), tt.wantType) {
				t.Errorf("%s Accept %q: status %d type %q, want %d %q", tt.method, tt.accept, res.StatusCode, res.Header.Get("Content-Type"), tt.wantStatus, tt.wantType)
			}
			if tt.wantStatus == 405 && res.Header.Get("Allow") != "POST" {
				t.Errorf("%s Accept %q: Allow %q", tt.method, tt.accept, res.Header.Get("Allow"))
			}
			if tt.wantStatus == 200 && res.Header.Get("Vary") != "Accept, Accept-Encoding" {
				t.Errorf("%s Accept %q: Vary %q", tt.method, tt.accept, res.Header.Get("Vary"))
			}
		}
	})
	docs := []struct {
		path, mediaType, wantURL string
	}{
		{"/mcp/server-card", mcp.ServerCardType, `"url":"` + s.base + `/mcp"`},
		{"/.well-known/ai-catalog.json", mcp.AICatalogType, `"url":"` + s.base + `/mcp/server-card"`},
	}
	for _, d := range docs {
		t.Run(d.path, func(t *testing.T) {
			res, body := do("GET", d.path, map[string]string{"Accept": d.mediaType, "Origin": "https://elsewhere.example"})
			etag := res.Header.Get("ETag")
			if res.StatusCode != 200 || res.Header.Get("Content-Type") != d.mediaType || !strings.HasPrefix(etag, `"`) {
				t.Fatalf("status %d, type %q, ETag %q", res.StatusCode, res.Header.Get("Content-Type"), etag)
			}
			if res.Header.Get("Access-Control-Allow-Origin") != "*" || res.Header.Get("Cache-Control") != "public, max-age=3600" || !strings.Contains(res.Header.Get("Access-Control-Expose-Headers"), "ETag") {
				t.Errorf("headers %v", res.Header)
			}
			var compact strings.Builder
			var v any
			if err := json.Unmarshal([]byte(body), &v); err != nil {
				t.Fatal(err)
			}
			enc := json.NewEncoder(&compact)
			enc.SetEscapeHTML(false)
			enc.Encode(v)
			if !strings.Contains(compact.String(), d.wantURL) || strings.Contains(body, build.Placeholder) {
				t.Errorf("body does not name %s or still has the placeholder: %s", d.wantURL, body)
			}
			if res, body := do("GET", d.path, map[string]string{"If-None-Match": etag}); res.StatusCode != 304 || body != "" {
				t.Errorf("If-None-Match: status %d, %d bytes", res.StatusCode, len(body))
			}
			if res, _ := do("OPTIONS", d.path, map[string]string{"Origin": "https://elsewhere.example", "Access-Control-Request-Method": "GET"}); res.StatusCode != 204 || res.Header.Get("Access-Control-Allow-Origin") != "*" {
				t.Errorf("preflight: status %d", res.StatusCode)
			}
		})
	}
}

// BenchmarkMCPFullStack measures ping through the whole server (request
// logging, panic recovery, the Host/Origin guard and the bearer check,
// which reads the token from the database) against a bare handler, both
// over loopback HTTP. server/mcp's BenchmarkMCP measures the endpoint
// alone.
func BenchmarkMCPFullStack(b *testing.B) {
	s := startAuthServer(b, storetest.Open(b, "sqlite"), nil)
	token := mcpAccessToken(b, s, "bench@example.com")
	bare := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	}))
	b.Cleanup(bare.Close)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	var bareNs float64
	for _, c := range []struct{ name, url string }{{"bare", bare.URL}, {"ping", s.base + "/mcp"}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				req, _ := http.NewRequest(http.MethodPost, c.url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authorization", "Bearer "+token)
				res, err := client.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode != http.StatusOK {
					b.Fatalf("status %d", res.StatusCode)
				}
			}
			ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			if c.name == "bare" {
				bareNs = ns
			} else {
				b.ReportMetric(bareNs/ns, "of_bare")
			}
		})
	}
}

// TestMCPCompressesLargeAnswers posts tools/list, an answer of several
// KiB, with each Accept-Encoding: a client that sends none gets plain
// JSON, one that accepts zstd or gzip gets it compressed, and all decode
// to the same answer.
func TestMCPCompressesLargeAnswers(t *testing.T) {
	s := startAuthServer(t, storetest.Open(t, "sqlite"), nil)
	token := mcpAccessToken(t, s, "compress@example.com")
	post := func(transport http.RoundTripper, acceptEncoding string) (*http.Response, []byte) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, s.base+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if acceptEncoding != "" {
			req.Header.Set("Accept-Encoding", acceptEncoding)
		}
		res, err := transport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, err := io.ReadAll(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		return res, body
	}
	raw := &http.Transport{DisableCompression: true}
	res, plain := post(raw, "")
	if res.StatusCode != 200 || res.Header.Get("Content-Encoding") != "" || !json.Valid(plain) || len(plain) < 1400 {
		t.Fatalf("no Accept-Encoding: status %d, Content-Encoding %q, %d bytes of JSON: %v", res.StatusCode, res.Header.Get("Content-Encoding"), len(plain), json.Valid(plain))
	}
	tests := []struct{ acceptEncoding, want string }{
		{"gzip", "gzip"},
		{"zstd", "zstd"},
		{"gzip, deflate, br, zstd", "zstd"},
		{"br", ""},
		{"gzip;q=0", ""},
	}
	for _, tt := range tests {
		res, body := post(raw, tt.acceptEncoding)
		if res.StatusCode != 200 || res.Header.Get("Content-Encoding") != tt.want || !strings.Contains(res.Header.Get("Vary"), "Accept-Encoding") {
			t.Errorf("Accept-Encoding %q: status %d, Content-Encoding %q, Vary %q; want %q", tt.acceptEncoding, res.StatusCode, res.Header.Get("Content-Encoding"), res.Header.Get("Vary"), tt.want)
			continue
		}
		if tt.want == "zstd" {
			d, err := zstd.NewReader(nil)
			if err != nil {
				t.Fatal(err)
			}
			body, err = d.DecodeAll(body, nil)
			d.Close()
			if err != nil {
				t.Fatalf("zstd: %v", err)
			}
		}
		if tt.want != "gzip" && !bytes.Equal(body, plain) {
			t.Errorf("Accept-Encoding %q: decoded answer differs from the plain one", tt.acceptEncoding)
		}
	}
	// Go's own transport asks for gzip and decodes it.
	res, body := post(http.DefaultTransport, "")
	if !res.Uncompressed || !bytes.Equal(body, plain) {
		t.Errorf("gzip through Go's transport: decoded %v, same answer %v", res.Uncompressed, bytes.Equal(body, plain))
	}
}
