package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/browser/browsertest"
)

// slowServer answers every request after 8 s (or when the test ends);
// arrived says when the browser's request has reached it, the observable
// sign that a browser_navigate is in flight in the gate.
func slowServer(t *testing.T) (url string, arrived <-chan struct{}) {
	t.Helper()
	got := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case got <- struct{}{}:
		default:
		}
		select {
		case <-time.After(8 * time.Second):
		case <-r.Context().Done():
		}
		fmt.Fprint(w, "<title>slow</title>late")
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/slow", got
}

// callInFlight starts a browser_navigate to a server that answers after
// 8 s and returns once the browser's request has reached it; the answer
// comes on the channel.
func callInFlight(t *testing.T, ctx context.Context, cs *mcp.ClientSession) <-chan *mcp.CallToolResult {
	t.Helper()
	url, arrived := slowServer(t)
	answer := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "browser_navigate", Arguments: map[string]any{"url": url}})
		if err != nil {
			t.Errorf("the call in flight got no answer: %v", err)
		}
		answer <- res
	}()
	select {
	case <-arrived:
	case <-ctx.Done():
		t.Fatal("the navigation never reached the slow server")
	}
	return answer
}

// TestSignalAnswersTheCallInFlight: SIGTERM or SIGINT (the end of run's
// ctx) while a browser_navigate waits for a server that answers after 8 s
// answers that call (failed, shutting_down), closes
// the browser and returns nil (exit 0) within a second or two; while idle
// it returns nil too.
func TestSignalAnswersTheCallInFlight(t *testing.T) {
	for _, busy := range []bool{true, false} {
		name := "idle"
		if busy {
			name = "busy"
		}
		t.Run(name, func(t *testing.T) {
			bound, cancelBound := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancelBound()
			sig, signal := context.WithCancel(bound)
			defer signal()
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			done := make(chan error, 1)
			go func() {
				done <- run(sig, []string{"mcp", "--company", "airline.test", "--no-join"}, inR, outW, io.Discard)
				outW.Close()
			}()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "model", Version: "1"}, nil).
				Connect(bound, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			var answer <-chan *mcp.CallToolResult
			if busy {
				// The browser starts beside the handshake: let it be up.
				if _, err := cs.CallTool(bound, &mcp.CallToolParams{Name: "browser_snapshot"}); err != nil {
					t.Fatal(err)
				}
				answer = callInFlight(t, bound, cs)
			}
			start := time.Now()
			signal()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("run after the signal: %v, want nil (exit 0)", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("run did not return within 5 s of the signal")
			}
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("shutting down took %s", d)
			}
			if !busy {
				return
			}
			res := <-answer
			if res == nil {
				return
			}
			raw, _ := json.Marshal(res.StructuredContent)
			var out struct{ Outcome, Reason string }
			_ = json.Unmarshal(raw, &out)
			if !res.IsError || out.Outcome != "failed" || out.Reason != "shutting_down" {
				t.Errorf("the call in flight got %s (isError %v), want failed/shutting_down", raw, res.IsError)
			}
		})
	}
}

// TestCDPURLThatNeverAnswers: --cdp-url to a port that accepts connections
// and never answers: the server answers at once, and the first browser
// tool fails with one clear reason at the connect bound (10 s), instead of
// start-up hanging for good.
func TestCDPURLThatNeverAnswers(t *testing.T) {
	addr := browsertest.SilentListener(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"mcp", "--company", "airline.test", "--no-join", "--cdp-url", "http://" + addr, "--attach-timeout", "5s"}, inR, outW, io.Discard)
		outW.Close()
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "model", Version: "1"}, nil).
		Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "browser_snapshot"})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if !res.IsError || !strings.Contains(string(raw), "did not answer in 5s") {
		t.Errorf("snapshot with a silent --cdp-url: %s (isError %v), want a failure that says the browser did not answer", raw, res.IsError)
	}
	// The start's attach (bounded by --attach-timeout, 5 s here) failed; the call tries once
	// more after the first backoff (0.5 s, ±20 %), bounded the same: the
	// call must answer within those, not wait for ever.
	if d := time.Since(start); d > 25*time.Second {
		t.Errorf("giving up took %s", d)
	}
	cs.Close()
	inW.Close()
	<-done
}

// TestSIGTERMFromOutside: the binary itself, sent a real SIGTERM while a
// browser_navigate waits for a server that answers after 8 s, answers that call (failed, shutting_down), closes its browser
// and exits 0 within a few seconds; sent one while idle, it exits 0 too.
func TestSIGTERMFromOutside(t *testing.T) {
	bin := buildBinary(t)
	for _, busy := range []bool{true, false} {
		name := "idle"
		if busy {
			name = "busy"
		}
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
			defer cancel()
			// Plain pipes, not cmd's: the answer must stay readable after
			// the process has exited and been waited for.
			inR, inW, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			outR, outW, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bin, "mcp", "--company", "airline.test", "--no-join")
			cmd.Stdin, cmd.Stdout = inR, outW
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			inR.Close()
			outW.Close()
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			defer func() {
				_ = cmd.Process.Kill() // only if the test failed before the exit
				inW.Close()
				outR.Close()
			}()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "model", Version: "1"}, nil).
				Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
			if err != nil {
				t.Fatalf("connect: %v\n%s", err, stderr.String())
			}
			var answer <-chan *mcp.CallToolResult
			if busy {
				if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "browser_snapshot"}); err != nil {
					t.Fatal(err) // the browser is up
				}
				answer = callInFlight(t, ctx, cs)
			}
			start := time.Now()
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-exited:
				if err != nil {
					t.Errorf("exit after SIGTERM: %v, want 0\n%s", err, stderr.String())
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("the process did not exit within 10 s of SIGTERM\n%s", stderr.String())
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("shutting down took %s", d)
			}
			if !busy {
				return
			}
			var res *mcp.CallToolResult
			select {
			case res = <-answer:
			case <-time.After(10 * time.Second):
				t.Fatal("the call in flight was never answered")
			}
			if res == nil {
				return // reported above
			}
			raw, _ := json.Marshal(res.StructuredContent)
			var out struct{ Outcome, Reason string }
			_ = json.Unmarshal(raw, &out)
			if !res.IsError || out.Outcome != "failed" || out.Reason != "shutting_down" {
				t.Errorf("the call in flight got %s (isError %v), want failed/shutting_down", raw, res.IsError)
			}
		})
	}
}
