// Package wiretest keeps HTTP exchanges of tests as golden files: txtar
// archives in testdata holding, for each case NAME, the request sent
// (section NAME/request) and the answer expected (NAME/response). A test
// run with -update writes the answers the server gave into the archive
// instead of comparing them; review the diff before committing it.
//
// A request section is a request line ("POST /mcp"), header lines ("Name:
// value", the value as it is after one space) and, after an empty line,
// the body. A header line with no value removes a header the test sets by
// default. A response section is the status
// code, the headers the archive was opened to record, an empty line and
// the body.
package wiretest

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/textproto"
	"os"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "write the answers the server gives into the golden testdata/*.txtar files")

// Archive is one golden file.
type Archive struct {
	// Rewrite, if set, rewrites each answer's body before it is compared
	// or recorded: for wording that varies from run to run by design.
	Rewrite func(body []byte) []byte

	path    string
	headers []string // recorded in answers
	ar      *txtar.Archive
	changed bool
}

// Case is one request of an archive.
type Case struct {
	Name   string
	Method string
	Path   string
	Header http.Header // "" values: remove the default
	Body   string
}

// Open reads the archive at path; answers record the headers named.
// With -update the archive is written back when the test ends.
func Open(t *testing.T, path string, headers ...string) *Archive {
	t.Helper()
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	a := &Archive{path: path, headers: headers, ar: ar}
	t.Cleanup(func() {
		if !a.changed {
			return
		}
		if err := os.WriteFile(path, txtar.Format(a.ar), 0o644); err != nil {
			t.Error(err)
		}
	})
	return a
}

// Cases returns the archive's requests in order.
func (a *Archive) Cases(t *testing.T) []Case {
	t.Helper()
	var cases []Case
	for _, f := range a.ar.Files {
		name, ok := strings.CutSuffix(f.Name, "/request")
		if !ok {
			continue
		}
		c, err := parseRequest(name, f.Data)
		if err != nil {
			t.Fatalf("%s: %v", a.path, err)
		}
		cases = append(cases, c)
	}
	if len(cases) == 0 {
		t.Fatalf("%s holds no requests", a.path)
	}
	return cases
}

// Request makes the case's request to base (scheme and host), with the
// default headers given unless the case overrides or removes them.
func (c Case) Request(t *testing.T, base string, defaults http.Header) *http.Request {
	t.Helper()
	req, err := http.NewRequest(c.Method, base+c.Path, strings.NewReader(c.Body))
	if err != nil {
		t.Fatal(err)
	}
	for k, vs := range defaults {
		req.Header[k] = vs
	}
	for k, vs := range c.Header {
		switch {
		case vs[0] == "":
			req.Header.Del(k)
		case k == "Host":
			req.Host = vs[0]
		default:
			req.Header[k] = vs
		}
	}
	return req
}

// Check compares the answer to the case's recorded one (with -update,
// records it), and returns the answer's body.
func (a *Archive) Check(t *testing.T, c Case, res *http.Response) []byte {
	t.Helper()
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	fmt.Fprintf(&got, "%d\n", res.StatusCode)
	for _, h := range a.headers {
		for _, v := range res.Header.Values(h) {
			fmt.Fprintf(&got, "%s: %s\n", h, v)
		}
	}
	got.WriteString("\n")
	if a.Rewrite != nil {
		got.Write(a.Rewrite(bytes.Clone(body)))
	} else {
		got.Write(body)
	}
	if !bytes.HasSuffix(got.Bytes(), []byte("\n")) {
		got.WriteString("\n") // as txtar stores it
	}
	name := c.Name + "/response"
	for i, f := range a.ar.Files {
		if f.Name != name {
			continue
		}
		if !bytes.Equal(f.Data, got.Bytes()) {
			if *update {
				a.ar.Files[i].Data = got.Bytes()
				a.changed = true
			} else {
				t.Errorf("%s: answer differs from %s (go test -update records it)\ngot:\n%s\nwant:\n%s", c.Name, a.path, got.Bytes(), f.Data)
			}
		}
		return body
	}
	if !*update {
		t.Errorf("%s: no %s in %s (go test -update records it)", c.Name, name, a.path)
		return body
	}
	a.insertAfter(c.Name+"/request", txtar.File{Name: name, Data: got.Bytes()})
	return body
}

// insertAfter puts f after the file named after.
func (a *Archive) insertAfter(after string, f txtar.File) {
	for i, g := range a.ar.Files {
		if g.Name == after {
			a.ar.Files = append(a.ar.Files[:i+1], append([]txtar.File{f}, a.ar.Files[i+1:]...)...)
			a.changed = true
			return
		}
	}
}

// parseRequest reads a request section.
func parseRequest(name string, data []byte) (Case, error) {
	r := textproto.NewReader(bufio.NewReader(bytes.NewReader(data)))
	line, err := r.ReadLine()
	if err != nil {
		return Case{}, fmt.Errorf("%s: no request line", name)
	}
	method, path, ok := strings.Cut(line, " ")
	if !ok || path == "" {
		return Case{}, fmt.Errorf("%s: request line %q is not METHOD PATH", name, line)
	}
	c := Case{Name: name, Method: method, Path: path, Header: http.Header{}}
	for {
		line, err := r.ReadLine()
		if err != nil || line == "" {
			break
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			return Case{}, fmt.Errorf("%s: header line %q has no colon", name, line)
		}
		// One space follows the colon; any more belong to the value.
		c.Header[textproto.CanonicalMIMEHeaderKey(k)] = []string{strings.TrimPrefix(v, " ")}
	}
	rest, _ := io.ReadAll(r.R)
	// txtar ends every section with a newline; the body's own last
	// newline, if it needs one, is written as an empty line.
	c.Body = strings.TrimSuffix(string(rest), "\n")
	return c, nil
}
