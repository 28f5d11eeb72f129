package build

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// The llms.txt grammar of the reference parser (AnswerDotAI/llms-txt,
// llms_txt/miniparse.py and core.py), in Go: the file is split at "##"
// headings; the part before the first holds "# title", an optional
// "> summary" line and free prose; every non-empty line of a section must be
// a "- [name](url): notes" item.
var (
	llmsSectionSplit = regexp.MustCompile(`(?m)^##\s*(.*?)$`)
	llmsHead         = regexp.MustCompile(`(?ms)\A#\s*(?P<title>.+?$)\n+(?:^>\s*(?P<summary>.+?$)$)?\n+(?P<info>.*)\z`)
	llmsLink         = regexp.MustCompile(`^-\s*\[(?P<title>[^\]]+)\]\((?P<url>[^\)]+)\)(?::\s*(?P<desc>.*))?$`)
	llmsHeading      = regexp.MustCompile(`(?m)^#`)
)

type llmsLinkItem struct{ title, url, desc string }

type llmsSection struct {
	name  string
	links []llmsLinkItem
}

type llmsFile struct {
	title, summary, info string
	sections             []llmsSection
}

// parseLLMS parses an llms.txt file, failing where the reference parser
// fails and where this project's stricter rules are broken: a summary is
// required, prose holds no headings, sections hold at least one item and
// have unique names, and "Optional", when present, comes last.
func parseLLMS(txt string) (llmsFile, error) {
	var f llmsFile
	txt = strings.TrimPrefix(txt, "\ufeff")
	bounds := llmsSectionSplit.FindAllStringSubmatchIndex(txt, -1)
	start := txt
	if len(bounds) > 0 {
		start = txt[:bounds[0][0]]
	}
	m := llmsHead.FindStringSubmatch(strings.TrimSpace(start) + "\n")
	if m == nil {
		return f, fmt.Errorf("no H1 title line at the start")
	}
	f.title = m[llmsHead.SubexpIndex("title")]
	f.summary = m[llmsHead.SubexpIndex("summary")]
	f.info = strings.TrimSpace(m[llmsHead.SubexpIndex("info")])
	if f.summary == "" {
		return f, fmt.Errorf("no blockquote summary after the title")
	}
	if llmsHeading.MatchString(f.info) {
		return f, fmt.Errorf("a heading in the prose before the first section")
	}
	seen := map[string]bool{}
	for i, b := range bounds {
		name := strings.TrimSpace(txt[b[2]:b[3]])
		end := len(txt)
		if i+1 < len(bounds) {
			end = bounds[i+1][0]
		}
		if strings.HasPrefix(name, "#") {
			return f, fmt.Errorf("heading %q below H2", "##"+name)
		}
		if seen[name] {
			return f, fmt.Errorf("section %q appears twice", name)
		}
		seen[name] = true
		sec := llmsSection{name: name}
		for _, line := range strings.Split(txt[b[1]:end], "\n") {
			if strings.TrimSpace(line) == "" {
				continue
			}
			lm := llmsLink.FindStringSubmatch(line)
			if lm == nil {
				return f, fmt.Errorf("section %q: %q is not a \"- [name](url): notes\" item", name, line)
			}
			sec.links = append(sec.links, llmsLinkItem{lm[1], lm[2], lm[3]})
		}
		if len(sec.links) == 0 {
			return f, fmt.Errorf("section %q has no items", name)
		}
		f.sections = append(f.sections, sec)
	}
	if seen["Optional"] && f.sections[len(f.sections)-1].name != "Optional" {
		return f, fmt.Errorf("section Optional is not last")
	}
	return f, nil
}

func parseLLMSTxt(t *testing.T, txt string) llmsFile {
	t.Helper()
	f, err := parseLLMS(txt)
	if err != nil {
		t.Fatalf("llms.txt: %v", err)
	}
	return f
}

func TestParseLLMS(t *testing.T) {
	const good = "# Name\n\n> Summary.\n\nProse.\n\n- a list in prose\n\n## Docs\n\n- [A](http://x/a.md): note\n- [B](http://x/b.md)\n\n## Optional\n\n- [C](http://x/c.md): more\n"
	tests := []struct {
		name    string
		txt     string
		wantErr string
	}{
		{"valid", good, ""},
		{"only title and summary", "# Name\n\n> Summary.\n", ""},
		{"no title", "> Summary.\n\n## Docs\n\n- [A](u)\n", "no H1"},
		{"no summary", "# Name\n\nProse.\n", "no blockquote summary"},
		{"heading in prose", "# Name\n\n> Summary.\n\ntext\n\n# Second title\n", "heading in the prose"},
		{"prose under a section", "# Name\n\n> Summary.\n\n## Docs\n\nSome words.\n- [A](u)\n", "is not a"},
		{"h3 inside a section", "# Name\n\n> Summary.\n\n## Docs\n\n- [A](u)\n### More\n", "below H2"},
		{"link without a list marker", "# Name\n\n> Summary.\n\n## Docs\n\n[A](u): note\n", "is not a"},
		{"empty section", "# Name\n\n> Summary.\n\n## Docs\n\n## Optional\n\n- [A](u)\n", "has no items"},
		{"optional not last", "# Name\n\n> Summary.\n\n## Optional\n\n- [A](u)\n\n## Docs\n\n- [B](v)\n", "not last"},
		{"duplicate section", "# Name\n\n> Summary.\n\n## Docs\n\n- [A](u)\n\n## Docs\n\n- [B](v)\n", "twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseLLMS(tt.txt)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
	f, err := parseLLMS(good)
	if err != nil {
		t.Fatal(err)
	}
	if f.title != "Name" || f.summary != "Summary." || len(f.sections) != 2 || f.sections[0].links[0] != (llmsLinkItem{"A", "http://x/a.md", "note"}) {
		t.Errorf("parsed %+v", f)
	}
}

func TestLLMSTxt(t *testing.T) {
	s := site(t)
	f := parseLLMSTxt(t, readFile(t, s, "llms.txt"))
	if f.title != "Studyloop" {
		t.Errorf("title %q, want Studyloop", f.title)
	}
	if last := f.sections[len(f.sections)-1].name; last != "Optional" {
		t.Errorf("last section %q, want Optional", last)
	}
	// The brief says what the service is, when to use it, how to call it and
	// what not to claim about it.
	for _, w := range []string{
		"When to use it", "How to call it", "What not to claim",
		Placeholder + "/mcp", Placeholder + "/.well-known/oauth-protected-resource", "/oauth/register",
		"create_study", "get_study_status", "list_studies", "get_mastery", "400,000",
	} {
		if !strings.Contains(f.summary+"\n"+f.info, w) {
			t.Errorf("the brief lacks %q", w)
		}
	}
	linked := map[string]bool{}
	for _, sec := range f.sections {
		for _, l := range sec.links {
			if !strings.HasPrefix(l.url, Placeholder+"/") {
				t.Errorf("link %q is not absolute on the placeholder origin", l.url)
			}
			if l.desc == "" {
				t.Errorf("link %q has no note", l.url)
			}
			linked[strings.TrimPrefix(l.url, Placeholder)] = true
		}
	}
	for _, p := range pages {
		if !linked[p.twin] {
			t.Errorf("llms.txt does not link the twin %s", p.twin)
		}
	}
	for _, w := range []string{"/llms-full.txt", "/openapi.json", "/mcp/server-card", "/.well-known/ai-catalog.json"} {
		if !linked[w] {
			t.Errorf("llms.txt does not link %s", w)
		}
	}
}
