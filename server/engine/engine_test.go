package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/studyloop/studyloop/server/studyloop"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

func mustOffline(tb testing.TB) *Offline {
	tb.Helper()
	g, err := NewOffline(nil)
	if err != nil {
		tb.Fatalf("NewOffline: %v", err)
	}
	return g
}

// generate runs the generator and fails unless the result validates.
func generate(tb testing.TB, g *Offline, text string) studyloop.Extraction {
	tb.Helper()
	ex, err := g.Generate(context.Background(), "Test", text)
	if err != nil {
		tb.Fatalf("Generate: %v", err)
	}
	if err := Validate(text, ex); err != nil {
		tb.Fatalf("Validate: %v", err)
	}
	return ex
}

func TestGolden(t *testing.T) {
	g := mustOffline(t)
	tests := []struct {
		fixture    string
		minTopics  int
		wantTypes  []studyloop.QuestionType
		wantTitles []string
	}{
		{"lecture.md", 6, []studyloop.QuestionType{studyloop.QuestionCloze, studyloop.QuestionShortAnswer, studyloop.QuestionTermDefinition}, []string{"Cell Biology", "Mitochondria", "Ribosomes"}},
		// The handout's topics share too few terms of one kind for
		// distractors, so it has no multiple choice.
		{"handout.txt", 2, []studyloop.QuestionType{studyloop.QuestionCloze, studyloop.QuestionShortAnswer}, nil},
		{"glossary.md", 2, []studyloop.QuestionType{studyloop.QuestionShortAnswer, studyloop.QuestionTermDefinition, studyloop.QuestionMultipleChoice}, []string{"Glossary of Economics", "Market terms"}},
		{"tables.md", 3, []studyloop.QuestionType{studyloop.QuestionTermDefinition, studyloop.QuestionCloze}, []string{"Planet data", "Chemical elements"}},
		// Two textbook-style sections of our own: bold terms defined in
		// prose, a worked example and a feature box that get no questions.
		{"matter.md", 3, []studyloop.QuestionType{studyloop.QuestionCloze, studyloop.QuestionShortAnswer}, []string{"Matter and Its Properties", "Physical and Chemical Properties"}},
		{"revolution.md", 2, []studyloop.QuestionType{studyloop.QuestionCloze, studyloop.QuestionShortAnswer}, []string{"The Road to Revolution", "The Townshend Acts and Boston"}},
		// Technical documentation of our own: names set as code
		// ("the `no-store` directive") are its terms.
		{"caching.md", 4, []studyloop.QuestionType{studyloop.QuestionCloze, studyloop.QuestionShortAnswer}, []string{"Freshness", "Validation"}},
		// A biology section of our own in an open textbook's shape, with
		// a feature box and a list of key terms.
		{"membranes.md", 3, []studyloop.QuestionType{studyloop.QuestionCloze, studyloop.QuestionShortAnswer, studyloop.QuestionTermDefinition, studyloop.QuestionMultipleChoice}, []string{"Passive Transport", "Active Transport"}},
		// A chemistry section of our own: objectives whose list is followed
		// by the section's opening, a worked example, named laws asked as
		// multiple choice among each other.
		{"gases.md", 5, []studyloop.QuestionType{studyloop.QuestionCloze, studyloop.QuestionShortAnswer, studyloop.QuestionMultipleChoice}, []string{"Gas Pressure", "Volume and Pressure: Boyle's Law"}},
		// An economics chapter of our own in an open textbook's shape: an
		// introduction, a "Clear It Up" box, key terms one per line in a
		// single paragraph, a summary and self-check questions.
		// Two chapters written for these tests by a helper who had not seen
		// the generator's output: a history chapter with a table of dates,
		// and a biology chapter with "Section Learning Objectives" boxes
		// and a trait table.
		{"chapter-us-history-reconstruction.md", 5, []studyloop.QuestionType{studyloop.QuestionCloze, studyloop.QuestionShortAnswer, studyloop.QuestionTermDefinition}, []string{"16.1 Wartime Plans and Presidential Reconstruction", "16.3 Reconstruction Governments in the South"}},
		{"chapter-biology-mendel.md", 4, []studyloop.QuestionType{studyloop.QuestionCloze, studyloop.QuestionShortAnswer, studyloop.QuestionTermDefinition}, []string{"12.1 Mendel's Experiments with Garden Peas", "12.3 Mendel's Laws of Inheritance"}},
		{"markets.md", 5, []studyloop.QuestionType{studyloop.QuestionCloze, studyloop.QuestionShortAnswer, studyloop.QuestionTermDefinition, studyloop.QuestionMultipleChoice}, []string{"Demand for Goods and Services", "What Shifts the Supply Curve"}},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join("testdata", tt.fixture))
			if err != nil {
				t.Fatal(err)
			}
			ex := generate(t, g, string(src))
			if len(ex.Topics) < tt.minTopics {
				t.Errorf("%d topics, want at least %d", len(ex.Topics), tt.minTopics)
			}
			types := map[studyloop.QuestionType]int{}
			for _, q := range ex.Questions {
				types[q.Type]++
			}
			for _, typ := range tt.wantTypes {
				if types[typ] == 0 {
					t.Errorf("no %s question; got %v", typ, types)
				}
			}
			titles := map[string]bool{}
			for _, tp := range ex.Topics {
				titles[tp.Title] = true
			}
			for _, title := range tt.wantTitles {
				if !titles[title] {
					t.Errorf("no topic %q", title)
				}
			}
			got, err := json.MarshalIndent(ex, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "golden", strings.TrimSuffix(tt.fixture, filepath.Ext(tt.fixture))+".json")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, append(got, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(append(got, '\n'), want) {
				t.Errorf("output differs from %s (go test -update rewrites it); got:\n%s", golden, got)
			}
		})
	}
}

// opticks returns the first n bytes (cut at a character boundary) of the
// public-domain text that ships with Go, or skips.
func opticks(tb testing.TB, n int) string {
	tb.Helper()
	root := os.Getenv("GOROOT")
	if root == "" {
		out, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			tb.Skipf("no GOROOT: %v", err)
		}
		root = strings.TrimSpace(string(out))
	}
	b, err := os.ReadFile(filepath.Join(root, "src", "testdata", "Isaac.Newton-Opticks.txt"))
	if err != nil {
		tb.Skipf("Opticks not available: %v", err)
	}
	text := string(b)
	if len(text) > n {
		text = strings.ToValidUTF8(text[:n], "")
	}
	return text
}

// TestOpticksProperties runs the generator on 400,000 characters of a real
// book and checks the validator's properties hold for every question, the
// segmentation found topics, the output is deterministic and concurrent
// use is safe.
func TestOpticksProperties(t *testing.T) {
	text := opticks(t, studyloop.MaxStudyTextChars)
	g := mustOffline(t)
	var wg sync.WaitGroup
	results := make([]studyloop.Extraction, 2)
	for i := range results {
		wg.Go(func() { results[i] = generate(t, g, text) })
	}
	wg.Wait()
	ex := results[0]
	a, _ := json.Marshal(results[0])
	b, _ := json.Marshal(results[1])
	if !bytes.Equal(a, b) {
		t.Error("two runs on the same text differ")
	}
	if len(ex.Topics) < 20 {
		t.Errorf("%d topics from 400,000 characters, want at least 20", len(ex.Topics))
	}
	if len(ex.Questions) < len(ex.Topics) {
		t.Errorf("%d questions for %d topics", len(ex.Questions), len(ex.Topics))
	}
	types := map[studyloop.QuestionType]int{}
	positions := [4]int{}
	for _, q := range ex.Questions {
		types[q.Type]++
		if q.Type == studyloop.QuestionMultipleChoice {
			for i, c := range q.Choices {
				if c == q.Answer {
					positions[i]++
				}
			}
		}
	}
	// Opticks defines almost nothing in "X is a Y that ..." form, so short
	// answers are not required of it; the glossary golden file covers them.
	if types[studyloop.QuestionCloze] == 0 || types[studyloop.QuestionMultipleChoice] == 0 {
		t.Errorf("question types %v, want cloze and multiple choice", types)
	}
	for i, n := range positions {
		// With few multiple-choice questions an empty position is chance.
		if types[studyloop.QuestionMultipleChoice] >= 40 && n < types[studyloop.QuestionMultipleChoice]/8 {
			t.Errorf("answer at position %d in %d of %d multiple-choice questions: not shuffled", i, n, types[studyloop.QuestionMultipleChoice])
		}
	}
	t.Logf("%d topics, %d questions %v", len(ex.Topics), len(ex.Questions), types)
}

// TestPathological feeds valid but hostile input: each must end in a result
// that validates or in a clear EINVALID error, well within the deadline.
func TestPathological(t *testing.T) {
	repeat := func(s string, n int) string { return strings.Repeat(s, n) }
	var rows strings.Builder
	rows.WriteString("| Name | Value |\n|---|---|\n")
	for i := range 5000 {
		rows.WriteString("| item " + strings.Repeat("x", i%7+1) + " " + strconv.Itoa(i) + " | value " + strconv.Itoa(i*7) + " |\n")
	}
	var nested strings.Builder
	for i := range 500 {
		nested.WriteString(strings.Repeat("  ", i) + "- The level " + strconv.Itoa(i) + " item is a nested entry of the outline.\n")
	}
	var headings strings.Builder
	for i := range 10000 {
		headings.WriteString("## Heading " + strconv.Itoa(i) + "\n\n")
		if i%10 == 0 {
			headings.WriteString("The sample " + strconv.Itoa(i) + " is a short paragraph about the heading that precedes it in the list.\n\n")
		}
	}
	tests := []struct {
		name string
		text string
	}{
		{"one 400k line without punctuation", repeat("word ", studyloop.MaxStudyTextChars/5)},
		{"one 400k word", repeat("a", studyloop.MaxStudyTextChars)},
		{"10000 headings", headings.String()},
		{"headings only", repeat("# Title\n", 20000)},
		{"deeply nested list", nested.String()},
		{"blockquotes nested", repeat(">", 5000) + " The deep quote is a test of nesting in the parser.\n"},
		{"table with 5000 rows", rows.String()},
		{"german", repeat("Die Photosynthese ist ein Prozess, bei dem Pflanzen aus Licht, Wasser und Kohlendioxid Zucker herstellen. Das Chlorophyll in den Blättern fängt das Licht ein.\n\n", 200)},
		{"russian", repeat("Фотосинтез — это процесс, при котором растения производят сахар из света, воды и углекислого газа.\n\n", 200)},
		{"chinese", repeat("光合作用是植物利用光能把二氧化碳和水合成有机物的过程。叶绿素吸收光能。\n\n", 500)},
		{"only code", "```\n" + repeat("x := 1 // code is not prose.\n", 1000) + "```\n"},
		{"punctuation", repeat("!?.,;: ", 10000)},
		{"emphasis soup", repeat("**_`[x](y)`_** ", 5000)},
		// Inputs on which goldmark alone takes super-linear time (CommonMark's
		// pathological cases): chunking and the plain-text fallback keep
		// each linear.
		{"150k nested list markers", repeat("- ", 150_000) + "The item is deep."},
		{"150k nested block quotes", repeat("> ", 150_000) + "The quote is deep."},
		{"nested brackets", repeat("[", 150_000) + "a" + repeat("]", 150_000)},
		{"unclosed links", repeat("[a](b", 80_000)},
		{"emphasis closers in threes", "a**b" + repeat("c* ", 130_000)},
		{"unclosed links on short lines", repeat(repeat("[a](b", 1000)+"\n", 80)},
		{"50k link reference definitions", repeat("[a]: b\n", 50_000)},
		{"1000-column table", "|" + repeat("a|", 1000) + "\n|" + repeat("-|", 1000) + "\n" + repeat("|"+repeat("a|", 1000)+"\n", 180)},
	}
	g := mustOffline(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			ex, err := g.Generate(ctx, "Pathological", tt.text)
			if err != nil {
				if studyloop.ErrorCode(err) != studyloop.EINVALID || studyloop.ErrorMessage(err) == "" {
					t.Fatalf("Generate: %v, want a result or an EINVALID error", err)
				}
				return
			}
			if err := Validate(tt.text, ex); err != nil {
				t.Fatalf("Validate: %v", err)
			}
		})
	}
}

func TestGenerateHonoursCancellation(t *testing.T) {
	text := opticks(t, 400_000)
	g := mustOffline(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := g.Generate(ctx, "", text); !errors.Is(err, context.Canceled) {
		t.Errorf("Generate on a cancelled context: %v, want context.Canceled", err)
	}
	ctx, cancel = context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	if _, err := g.Generate(ctx, "", text); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Generate past its deadline: %v, want context.DeadlineExceeded", err)
	}
}

func TestTileSplitsAtTopicChange(t *testing.T) {
	text := strings.Repeat("Glaciers carve valleys. Ice sheets grind rock and glaciers move moraines downhill with ice.\n\n", 12) +
		strings.Repeat("Bees pollinate flowers. Nectar feeds the hive and bees store honey in wax combs.\n\n", 12)
	ex := generate(t, mustOffline(t), text)
	if len(ex.Topics) != 2 {
		t.Fatalf("%d topics %+v, want 2", len(ex.Topics), ex.Topics)
	}
	boundary := strings.Index(text, "Bees")
	if got := ex.Topics[1].Span.Start; got != boundary {
		t.Errorf("second topic starts at %d, want the paragraph break at %d", got, boundary)
	}
	for i, tp := range ex.Topics {
		if tp.Parent != -1 {
			t.Errorf("topic %d has parent %d, want top level", i, tp.Parent)
		}
	}
}

func FuzzGenerate(f *testing.F) {
	for _, name := range []string{"lecture.md", "handout.txt", "glossary.md", "tables.md"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add("# A\n## B\n- x: y z\n| a | b |\n|-|-|\n| c | d |\nTerm\n: def is here\n")
	g := mustOffline(f)
	f.Fuzz(func(t *testing.T, text string) {
		ex, err := g.Generate(context.Background(), "Fuzz", text)
		if err != nil {
			if studyloop.ErrorCode(err) != studyloop.EINVALID {
				t.Fatalf("Generate: %v", err)
			}
			return
		}
		if err := Validate(text, ex); err != nil {
			t.Fatalf("Validate: %v", err)
		}
	})
}

// TestLongSectionsSplitIntoSubtopics checks that a heading over too much
// text keeps its title and gains subtopics cut by cohesion, each inside
// its parent's span.
func TestLongSectionsSplitIntoSubtopics(t *testing.T) {
	body, err := os.ReadFile(filepath.Join("testdata", "handout.txt"))
	if err != nil {
		t.Fatal(err)
	}
	text := "# Earth science\n\n" + string(body) + "\n# Short note\n\nThe Moon is the only natural satellite of the Earth.\n"
	g, err := NewOffline(&Options{MaxTopicWords: 200, MinTopicWords: 60})
	if err != nil {
		t.Fatal(err)
	}
	ex := generate(t, g, text)
	if ex.Topics[0].Title != "Earth science" || ex.Topics[0].Parent != -1 {
		t.Fatalf("first topic %+v, want the heading at top level", ex.Topics[0])
	}
	children := 0
	for i, tp := range ex.Topics {
		if tp.Parent != 0 {
			continue
		}
		children++
		parent := ex.Topics[0].Span
		if tp.Span.Start < parent.Start || tp.Span.End > parent.End {
			t.Errorf("subtopic %d %q span %v outside its parent's %v", i, tp.Title, tp.Span, parent)
		}
	}
	if children < 2 {
		t.Errorf("%d subtopics under the long section, want at least 2: %+v", children, ex.Topics)
	}
	last := ex.Topics[len(ex.Topics)-1]
	if last.Title != "Short note" || last.Parent != -1 {
		t.Errorf("last topic %+v, want the short section at top level", last)
	}
}
