package web_test

import (
	"bytes"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/studyloop/studyloop/server/extract"
	"github.com/studyloop/studyloop/server/extract/extracttest"
	"github.com/studyloop/studyloop/server/store"
	"github.com/studyloop/studyloop/server/store/storetest"
)

// TestStudyQuotaOnBothSurfaces: with QUOTA_STUDIES_PER_HOUR=2, the second
// study of the hour is the last allowed, whether made by an agent or in
// the web app; the third gets a tool error on /mcp and a 429 page in the
// web app, each saying when to try again, and nothing is stored.
func TestStudyQuotaOnBothSurfaces(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		s := startAuthServer(t, db, map[string]string{"QUOTA_STUDIES_PER_HOUR": "2"})
		cs, _ := connectMCP(t, s, mcpAccessToken(t, s, "agent@example.com"), "2025-11-25")
		text := map[string]any{"text": "Osmosis moves water across a membrane."}
		for i := range 2 {
			if _, res := callJSON[map[string]any](t, cs, "create_study", text); res.IsError {
				t.Fatalf("study %d: %s", i+1, toolErrorText(t, res))
			}
		}
		_, res := callJSON[map[string]any](t, cs, "create_study", text)
		msg := toolErrorText(t, res)
		for _, want := range []string{"Quota reached: 2 studies were created in the last hour", "Try again in 60 minutes (at ", "Nothing was stored."} {
			if !strings.Contains(msg, want) {
				t.Errorf("tool error %q lacks %q", msg, want)
			}
		}
		list, _ := callJSON[struct {
			Studies []any `json:"studies"`
		}](t, cs, "list_studies", nil)
		if len(list.Studies) != 2 {
			t.Fatalf("%d studies listed after the refusal, want 2", len(list.Studies))
		}

		b := newBrowser(t, s)
		b.signUp(t, "", "web@example.com", "long enough password")
		csrf := b.get(t, "/app").csrf(t)
		post := func(text string) page {
			return b.post(t, "/app/studies", url.Values{"csrf_token": {csrf}, "title": {"Cells"}, "text": {text}})
		}
		for i := range 2 {
			if p := post("A cell is the smallest unit of life."); p.status != http.StatusSeeOther {
				t.Fatalf("web study %d: %d", i+1, p.status)
			}
		}
		p := post("Mitochondria make ATP.")
		if p.status != http.StatusTooManyRequests || !strings.Contains(p.body, "Quota reached: 2 studies were created in the last hour") || !strings.Contains(p.body, "Mitochondria make ATP.") {
			t.Fatalf("third web study: %d, want 429 with the quota message and the text kept in the form: %.400s", p.status, p.body)
		}
		if secs, err := strconv.Atoi(p.header.Get("Retry-After")); err != nil || secs < 3590 || secs > 3600 {
			t.Errorf("Retry-After %q, want about an hour", p.header.Get("Retry-After"))
		}
	})
}

// TestUploadQuotaInTheWebApp: with QUOTA_UPLOAD_PAGES_PER_DAY=3, a PDF of
// two pages is accepted, and a second one, which would make four, is
// refused with 429, Retry-After and a message saying when to try again;
// nothing is stored for it.
func TestUploadQuotaInTheWebApp(t *testing.T) {
	if err := extract.New(nil).PDFAvailable(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	pdf := extracttest.PDF(t, []extracttest.Page{{Lines: []string{"Mitosis divides a nucleus."}}, {Lines: []string{"Meiosis makes gametes."}}}, nil)
	db := storetest.Open(t, "sqlite")
	s := startAuthServer(t, db, map[string]string{"QUOTA_UPLOAD_PAGES_PER_DAY": "3"})
	b := newBrowser(t, s)
	b.signUp(t, "", "ada@example.com", "long enough password")
	csrf := b.get(t, "/app").csrf(t)
	upload := func() page {
		body, contentType := multipartBody(t, map[string]string{"csrf_token": csrf, "title": "Cells"}, "pdf", pdf)
		req, _ := http.NewRequest(http.MethodPost, s.base+"/app/studies/pdf", bytes.NewReader(body))
		req.Header.Set("Content-Type", contentType)
		return b.do(t, req)
	}
	if p := upload(); p.status != http.StatusSeeOther {
		t.Fatalf("first upload: %d %.300s", p.status, p.body)
	}
	p := upload()
	if p.status != http.StatusTooManyRequests || !strings.Contains(p.body, "Quota reached: this upload would pass the 3 pages and photos a day this account may upload. Try again in 24 hours") {
		t.Fatalf("second upload: %d, want 429 with the quota message: %.600s", p.status, p.body)
	}
	if p.header.Get("Retry-After") == "" {
		t.Error("no Retry-After")
	}
	n, err := db.NewSelect().Table("studies").Count(t.Context())
	if err != nil || n != 1 {
		t.Fatalf("%d studies stored (%v), want 1", n, err)
	}
}
