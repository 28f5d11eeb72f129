package extract

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestToolsGetAMinimalEnvironment runs env(1) through the path every tool
// runs by: it sees the few variables the tools need, not the server's
// environment, where secrets such as DATABASE_URL live.
func TestToolsGetAMinimalEnvironment(t *testing.T) {
	env, ok := lookPath(os.Getenv("PATH"), "env")
	if !ok {
		t.Skip("env(1) not found on the PATH")
	}
	t.Setenv("STUDYLOOP_TEST_SECRET", "postgres://app:hunter2@db/studyloop")
	t.Setenv("DATABASE_URL", "postgres://app:hunter2@db/studyloop")
	t.Setenv("TESSDATA_PREFIX", "/opt/tessdata")
	t.Setenv("LC_ALL", "C.UTF-8")
	tmp := t.TempDir()
	for _, withPrlimit := range []bool{false, true} {
		x := New(&Options{TempDir: tmp})
		if !withPrlimit {
			delete(x.tools, toolPrlimit)
		} else if !x.MemoryBounded() {
			t.Log("prlimit not installed: only the direct run is checked")
			continue
		}
		x.tools[toolPDFInfo] = env
		var out bytes.Buffer
		if err := x.run(t.Context(), &out, toolPDFInfo); err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			k, v, _ := strings.Cut(line, "=")
			got[k] = v
		}
		allowed := map[string]bool{"PATH": true, "HOME": true, "TMPDIR": true, "OMP_THREAD_LIMIT": true,
			"TESSDATA_PREFIX": true, "LANG": true, "LC_ALL": true, "LC_CTYPE": true}
		for k := range got {
			if !allowed[k] {
				t.Errorf("prlimit %v: %s reached the tool", withPrlimit, k)
			}
		}
		for k, want := range map[string]string{"PATH": os.Getenv("PATH"), "OMP_THREAD_LIMIT": "1", "TESSDATA_PREFIX": "/opt/tessdata", "LC_ALL": "C.UTF-8"} {
			if got[k] != want {
				t.Errorf("prlimit %v: %s=%q, want %q", withPrlimit, k, got[k], want)
			}
		}
		for _, k := range []string{"HOME", "TMPDIR"} {
			if dir := got[k]; dir == "" || filepath.Dir(dir) != tmp {
				t.Errorf("prlimit %v: %s=%q, want a private directory in %s", withPrlimit, k, dir, tmp)
			}
		}
	}
	// The per-run directories are removed.
	if left, err := os.ReadDir(tmp); err != nil || len(left) > 0 {
		t.Errorf("temporary files left behind: %v (%v)", left, err)
	}
}
