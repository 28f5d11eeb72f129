package mcp_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/studyloop/studyloop/server/fsrs"
	"github.com/studyloop/studyloop/server/store/storetest"
)

// BenchmarkMCP measures, in one run over loopback HTTP, per database, a bare
// handler, ping, tools/list, and tools/call of list_studies (a page of 20)
// and get_mastery (a study of 40 topics and 800 answered questions), asked
// again unchanged (get_mastery) and right after an answer
// (get_mastery_after_answer). Each
// MCP case reports its cost as a multiple of ping (x_ping; target for
// get_mastery: at most 3), and ping reports its speed as a fraction of the
// bare handler (of_bare; target: at least 0.5). Run it with
// go test -run '^$' -bench BenchmarkMCP ./server/mcp (make bench).
func BenchmarkMCP(b *testing.B) {
	for _, dialect := range storetest.Dialects {
		b.Run(dialect, func(b *testing.B) { benchmarkMCP(b, dialect) })
	}
}

func benchmarkMCP(b *testing.B, dialect string) {
	db := storetest.Open(b, dialect)
	e := newEnv(b, db)
	st, qs := mustReadyStudy(b, db, e.alice, "Bench", 40, 20)
	mustAnswerAll(b, db, e.alice, qs)
	for i := range 19 {
		if _, err := db.CreateStudy(b.Context(), e.alice, "", fmt.Sprintf("Study %d.", i)); err != nil {
			b.Fatal(err)
		}
	}
	bare := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	}))
	b.Cleanup(bare.Close)

	cases := []struct {
		name, url, body string
	}{
		{"bare", bare.URL, `{"jsonrpc":"2.0","id":1,"method":"ping"}`},
		{"ping", e.url, `{"jsonrpc":"2.0","id":1,"method":"ping"}`},
		{"tools_list", e.url, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
		{"list_studies", e.url, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_studies","arguments":{}}}`},
		{"get_mastery", e.url, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_mastery","arguments":{"study_id":"` + st.ID + `"}}}`},
		{"get_mastery_after_answer", e.url, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_mastery","arguments":{"study_id":"` + st.ID + `"}}}`},
	}
	// get_mastery_after_answer records an answer (untimed) before each
	// call, so that every call reads and works out the study afresh: the
	// cost of the first call after an answer, where get_mastery pays
	// for the store's and its own caches being out of date.
	answered := 0
	answerOne := func(b *testing.B) {
		q := qs[answered%len(qs)]
		answered++
		if _, err := db.RecordAnswer(b.Context(), e.alice, q.ID, fsrs.Good, time.Now()); err != nil {
			b.Fatal(err)
		}
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	auth := fmt.Sprintf("Bearer user-%d", e.alice)
	nsPerOp := map[string]float64{}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if c.name == "get_mastery_after_answer" {
					b.StopTimer()
					answerOne(b)
					b.StartTimer()
				}
				req, _ := http.NewRequest(http.MethodPost, c.url, strings.NewReader(c.body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("Authorization", auth)
				resp, err := client.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				n, _ := io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK || n < 30 {
					b.Fatalf("status %d, %d bytes", resp.StatusCode, n)
				}
			}
			ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			nsPerOp[c.name] = ns
			switch c.name {
			case "bare":
			case "ping":
				b.ReportMetric(nsPerOp["bare"]/ns, "of_bare")
			default:
				b.ReportMetric(ns/nsPerOp["ping"], "x_ping")
			}
		})
	}
}
