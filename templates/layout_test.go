package templates

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"regexp"
	"strings"
	"testing"

	"github.com/a-h/templ"

	"github.com/studyloop/studyloop/build"
)

func renderPage(t *testing.T, props PageProps, child string) string {
	t.Helper()
	body := templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		_, err := io.WriteString(w, child)
		return err
	})
	var buf bytes.Buffer
	ctx := templ.WithChildren(context.Background(), body)
	if err := Page(props).Render(ctx, &buf); err != nil {
		t.Fatalf("render: %v", err)
	}
	return buf.String()
}

func TestPage(t *testing.T) {
	tests := []struct {
		name    string
		props   PageProps
		want    []string
		notWant []string
	}{
		{
			name:    "title, heading and sign-in button",
			props:   PageProps{Title: "Sign in"},
			want:    []string{"<title>Sign in – Studyloop</title>", "<h1>Sign in</h1>", `href="/signin">Sign in</a>`, `<link rel="stylesheet" href="/css/site.css">`, "<p>child</p>"},
			notWant: []string{`class="flash"`, `class="error"`},
		},
		{
			name:    "empty title",
			props:   PageProps{},
			want:    []string{"<title>Studyloop</title>"},
			notWant: []string{"<title> – Studyloop</title>"},
		},
		{
			name:  "flash and error are shown and escaped",
			props: PageProps{Title: "Consent", Flash: "Signed <b>in</b>.", Error: `Bad "state" & more`},
			want: []string{
				`<p class="flash" role="status">Signed &lt;b&gt;in&lt;/b&gt;.</p>`,
				`<p class="error" role="alert">Bad &#34;state&#34; &amp; more</p>`,
			},
			notWant: []string{"<b>in</b>"},
		},
		{
			name:    "signed in without heading",
			props:   PageProps{Title: "Your studies", SignedIn: true, HideHeading: true},
			want:    []string{`<a class="button" href="/app">Web app</a>`},
			notWant: []string{"<h1>", `class="button" href="/signin"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := renderPage(t, tt.props, "<p>child</p>")
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("output lacks %q\n%s", w, got)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(got, w) {
					t.Errorf("output contains %q", w)
				}
			}
		})
	}
}

var hrefPattern = regexp.MustCompile(`href="([^"#]*)"`)

// TestPageLinksMatchSite checks that every link in the layout's header and
// footer is also a link on the built site's home page, so the run-time pages
// do not drift from the static site.
func TestPageLinksMatchSite(t *testing.T) {
	home, err := fs.ReadFile(build.Site(), "index.html")
	if err != nil {
		t.Fatalf("the built site is missing (run make site): %v", err)
	}
	siteLinks := map[string]bool{}
	for _, m := range hrefPattern.FindAllStringSubmatch(string(home), -1) {
		siteLinks[m[1]] = true
	}
	for _, props := range []PageProps{{}, {SignedIn: true}} {
		page := renderPage(t, props, "")
		for _, m := range hrefPattern.FindAllStringSubmatch(page, -1) {
			if !siteLinks[m[1]] {
				t.Errorf("layout links to %q, which the site's home page does not", m[1])
			}
		}
	}
}
