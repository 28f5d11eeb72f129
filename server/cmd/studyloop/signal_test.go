package main

import (
	"bufio"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
	"time"
)

// TestSignalsShutDownGracefully builds the real binary, and for SIGINT and
// SIGTERM starts it, begins a request, sends the signal while the request
// is in flight, and checks that the request completes and the process
// exits with status 0.
func TestSignalsShutDownGracefully(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "studyloop")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd := exec.Command(bin)
			cmd.Env = append(os.Environ(),
				"ADDR=127.0.0.1:0",
				"DATABASE_URL=sqlite:"+filepath.Join(t.TempDir(), "studyloop.db"),
				"LOG_LEVEL=warn",
			)
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cmd.Process.Kill() })
			addr := make(chan string, 1)
			go func() {
				sc := bufio.NewScanner(stdout)
				re := regexp.MustCompile(`listening on (\S+)\)`)
				for sc.Scan() {
					if m := re.FindStringSubmatch(sc.Text()); m != nil {
						addr <- "http://" + m[1]
					}
				}
			}()
			var base string
			select {
			case base = <-addr:
			case <-time.After(30 * time.Second):
				t.Fatal("server did not start in 30s")
			}

			body, bodyWriter := io.Pipe()
			status := make(chan int, 1)
			go func() {
				res, err := http.Post(base+"/oauth/register", "application/json", body)
				if err != nil {
					t.Errorf("in-flight request: %v", err)
					status <- 0
					return
				}
				res.Body.Close()
				status <- res.StatusCode
			}()
			io.WriteString(bodyWriter, `{"client_name":"slow client",`)
			time.Sleep(200 * time.Millisecond) // the request is now in flight
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			time.Sleep(200 * time.Millisecond) // the server is now shutting down
			io.WriteString(bodyWriter, `"redirect_uris":["http://127.0.0.1/callback"]}`)
			bodyWriter.Close()
			if got := <-status; got != http.StatusCreated {
				t.Errorf("in-flight request: status %d, want 201", got)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			select {
			case err := <-exited:
				if err != nil {
					t.Errorf("after %v the process exited with %v, want status 0", sig, err)
				}
			case <-time.After(30 * time.Second):
				t.Fatalf("process still running 30s after %v", sig)
			}
		})
	}
}
