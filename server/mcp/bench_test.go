package mcp_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
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
// (get_mastery_after_answer), and get_mastery in MCP 2026-07-28 against
// 2025 (get_mastery_2026_vs_2025). Each MCP case reports its cost as a
// multiple of ping (x_ping; target for get_mastery: at most 3), the 2026
// call's median time as a multiple of the 2025 one's (x_2025; target: at
// most 1.1), and
// ping its speed as a fraction of the bare handler (of_bare; target: at
// least 0.5). Run it with
// go test -run '^$' -bench BenchmarkMCP ./server/mcp (make bench).
func BenchmarkMCP(b *testing.B) {
	for _, dialect := range storetest.Dialects {
		b.Run(dialect, func(b *testing.B) { benchmarkMCP(b, dialect) })
	}
}

func benchmarkMCP(b *testing.B, dialect string) {
	db := storetest.Open(b, dialect)
	e := newEnv(b, db)
	st, qs := storetest.ReadyStudy(b, db, e.alice, "Bench", 40, 20)
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

	mastery := `"name":"get_mastery","arguments":{"study_id":"` + st.ID + `"}`
	type call struct {
		url, body string
		headers   []string
	}
	getMastery := call{e.url, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + mastery + `}}`, nil}
	getMastery2026 := call{e.url, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + mastery + `,` + meta2026 + `}}`,
		[]string{"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "get_mastery"}}
	cases := []struct {
		name string
		call call
	}{
		{"bare", call{bare.URL, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, nil}},
		{"ping", call{e.url, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, nil}},
		{"tools_list", call{e.url, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, nil}},
		{"list_studies", call{e.url, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_studies","arguments":{}}}`, nil}},
		{"get_mastery", getMastery},
		{"get_mastery_after_answer", getMastery},
	}
	// get_mastery_after_answer records an answer (untimed) before each
	// call, so that every call reads and works out the study afresh: the
	// cost of the first call after an answer, where get_mastery pays
	// for the store's and its own caches being out of date.
	answered := 0
	answerOne := func(b *testing.B) {
		q := qs[answered%len(qs)]
		answered++
		if _, err := storetest.Service(db).RecordAnswer(b.Context(), e.alice, q.ID, fsrs.Good, time.Now()); err != nil {
			b.Fatal(err)
		}
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	auth := fmt.Sprintf("Bearer user-%d", e.alice)
	send := func(b *testing.B, c call) {
		req, _ := http.NewRequest(http.MethodPost, c.url, strings.NewReader(c.body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", auth)
		for i := 0; i+1 < len(c.headers); i += 2 {
			req.Header.Set(c.headers[i], c.headers[i+1])
		}
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
				send(b, c.call)
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
	// get_mastery_2026_vs_2025 sends the same call in both revisions in
	// turn, each timed on its own, so that a change of the machine's load
	// weighs on both alike; x_2025 is the 2026 call's median time over the
	// 2025 one's (medians, so that a burst of other work on a shared
	// machine does not decide it).
	b.Run("get_mastery_2026_vs_2025", func(b *testing.B) {
		var legacy, modern []time.Duration
		timed := func(c call) time.Duration {
			start := time.Now()
			send(b, c)
			return time.Since(start)
		}
		for i := 0; b.Loop(); i++ {
			if i%2 == 0 {
				legacy = append(legacy, timed(getMastery))
				modern = append(modern, timed(getMastery2026))
			} else {
				modern = append(modern, timed(getMastery2026))
				legacy = append(legacy, timed(getMastery))
			}
		}
		median := func(d []time.Duration) float64 {
			slices.Sort(d)
			return float64(d[len(d)/2].Nanoseconds())
		}
		m2026, m2025 := median(modern), median(legacy)
		b.ReportMetric(m2026, "median_ns_2026")
		b.ReportMetric(m2025, "median_ns_2025")
		b.ReportMetric(m2026/m2025, "x_2025")
	})
}
