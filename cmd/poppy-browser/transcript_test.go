package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/tools/txtar"

	"github.com/poppy-browser/poppy-browser/internal/golden"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// TestMCPTranscripts replays the model's side of each MCP conversation in
// testdata/transcripts/*.txtar, as go-sdk's conformance test replays its
// own: the "client" file's JSON-RPC messages go, one line each, over the
// in-memory transport to a server on a real runtime (Chromium on the demo
// airline), and the server's answers, normalised, must be the "server"
// file byte for byte (-update rewrites it; read the diff).
//
// Lines of "client" that are not JSON are the rest of the world between
// two messages (README, "MCP tools"): "user take", "user click SELECTOR",
// "user type TEXT", "user hand_back" are the User on the live view's
// websocket; "wait url SUFFIX", "wait check-ins N" and "wait webmcp N"
// wait for the page, the airline or the page's WebMCP tools; "#" starts
// a comment. Notifications from the server are left out: when one arrives
// against a response is a matter of timing, not of the protocol.
func TestMCPTranscripts(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "transcripts", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 4 {
		t.Fatalf("found %d transcripts, want the section 7 flow, a refusal, an offer and a WebMCP call", len(files))
	}
	for _, path := range files {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var client []byte
			for _, f := range ar.Files {
				if f.Name == "client" {
					client = f.Data
				}
			}
			if client == nil {
				t.Fatalf("%s has no client file", path)
			}
			ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
			defer cancel()
			server := replay(t, ctx, client)
			// What the User types is theirs: no answer to the model holds it.
			for _, line := range strings.Split(string(client), "\n") {
				if typed, ok := strings.CutPrefix(strings.TrimSpace(line), "user type "); ok && bytes.Contains(server, []byte(typed)) {
					t.Errorf("the User typed %q and an answer to the model holds it", typed)
				}
			}
			out := &txtar.Archive{Comment: ar.Comment, Files: []txtar.File{
				{Name: "client", Data: client},
				{Name: "server", Data: server},
			}}
			golden.Check(t, path, txtar.Format(out))
		})
	}
}

// replay runs one transcript's client lines against a fresh runtime and
// returns the server's answers, normalised, one indented JSON message each.
func replay(t *testing.T, ctx context.Context, client []byte) []byte {
	d := startDemo(t, ctx)
	ct, st := mcp.NewInMemoryTransports()
	if _, err := d.srv.Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	conn, err := ct.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	var (
		out bytes.Buffer
		u   *user
	)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the server's answers so far:\n%s", out.String())
		}
	})
	for n, line := range strings.Split(string(client), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
			continue
		case strings.HasPrefix(line, "{"):
			msg, err := jsonrpc.DecodeMessage([]byte(line))
			if err != nil {
				t.Fatalf("client line %d: %v", n+1, err)
			}
			if err := conn.Write(ctx, msg); err != nil {
				t.Fatalf("client line %d: writing: %v", n+1, err)
			}
			req, ok := msg.(*jsonrpc.Request)
			if !ok || !req.IsCall() {
				continue // a notification or a response: nothing comes back
			}
			resp := awaitResponse(t, ctx, conn, req.ID)
			raw, err := jsonrpc.EncodeMessage(resp)
			if err != nil {
				t.Fatal(err)
			}
			var pretty bytes.Buffer
			if err := json.Indent(&pretty, raw, "", "  "); err != nil {
				t.Fatal(err)
			}
			out.WriteString(normalise(pretty.String(), d) + "\n")
		default:
			u = world(t, ctx, d, u, line)
		}
	}
	return out.Bytes()
}

// awaitResponse reads the server's messages until the response to id,
// answering nothing and dropping notifications.
func awaitResponse(t *testing.T, ctx context.Context, conn mcp.Connection, id jsonrpc.ID) *jsonrpc.Response {
	t.Helper()
	for {
		msg, err := conn.Read(ctx)
		if err != nil {
			t.Fatalf("waiting for the response to %v: %v", id.Raw(), err)
		}
		if r, ok := msg.(*jsonrpc.Response); ok && r.ID == id {
			return r
		}
	}
}

// world runs one line of the world between two messages.
func world(t *testing.T, ctx context.Context, d *demo, u *user, line string) *user {
	t.Helper()
	verb, arg, _ := strings.Cut(line, " ")
	if verb == "user" {
		if u == nil {
			u = connectUser(t, ctx, d.sv.LiveURL())
		}
		what, rest, _ := strings.Cut(arg, " ")
		switch what {
		case "take":
			u.controller(ctx, "agent")
			u.send(map[string]any{"type": "take"})
			u.controller(ctx, "user")
			// The page reads the change before the User acts on it.
			if _, err := d.site.WaitFrameReport(ctx, func(f testsite.FrameReport) bool {
				return f.Host == testsite.CompanyDomain && f.Controller == "user"
			}); err != nil {
				t.Fatalf("%s: the page never read user (%v); the frames reported %+v", line, err, d.site.FrameReports())
			}
		case "click":
			u.clickOn(ctx, rest)
		case "type":
			u.send(map[string]any{"type": "text", "text": rest})
		case "hand_back":
			msg := map[string]any{"type": "hand_back"}
			if rest != "" {
				msg["text"] = rest // the User's message to the agent
			}
			u.send(msg)
			u.controller(ctx, "agent")
		default:
			t.Fatalf("unknown step %q", line)
		}
		return u
	}
	if verb != "wait" {
		t.Fatalf("unknown step %q", line)
	}
	what, rest, _ := strings.Cut(arg, " ")
	switch what {
	case "url":
		waitUntil(t, ctx, "the page is "+rest, func() bool { return strings.HasSuffix(d.sv.Page().URL(), rest) })
	case "check-ins":
		var n int
		fmt.Sscan(rest, &n)
		if _, err := d.site.WaitCheckIns(ctx, n); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
	case "webmcp":
		var n int
		fmt.Sscan(rest, &n)
		waitUntil(t, ctx, fmt.Sprintf("%d WebMCP tools", n), func() bool {
			res, err := d.mcp.CallTool(ctx, &mcp.CallToolParams{Name: "browser_webmcp_list", Arguments: map[string]any{}})
			if err != nil {
				t.Fatal(err)
			}
			var list struct {
				Tools []json.RawMessage `json:"tools"`
			}
			raw, _ := json.Marshal(res.StructuredContent)
			_ = json.Unmarshal(raw, &list)
			return len(list.Tools) == n
		})
	default:
		t.Fatalf("unknown step %q", line)
	}
	return u
}

// What varies from one run to the next, and the placeholder it becomes.
var (
	rfc3339Time = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)`)
	// clockTime is a time of day as a result's text says it ("at 04:00:55 UTC").
	clockTime   = regexp.MustCompile(`\b\d\d:\d\d:\d\d UTC\b`)
	loopbackURL = regexp.MustCompile(`(https?|wss?)://(127\.0\.0\.1|localhost|\[::1\]):\d+[^"\s\\]*`)
	// pinged is the line the airline's frames show when their /api/ping
	// fetch lands, before or after the runtime reads the page.
	pinged = regexp.MustCompile(`\\n *- text: Connected`)
)

// normalise replaces what varies between runs with placeholders: the
// times (<TIME>) and the live view's address, port and token
// (<LIVE-URL>); the line "Connected" of a frame whose ping has landed is
// left out, since whether it has is a race with the page's own fetch.
func normalise(s string, d *demo) string {
	if live := d.sv.LiveURL(); live != "" {
		s = strings.ReplaceAll(s, live, "<LIVE-URL>")
	}
	s = loopbackURL.ReplaceAllString(s, "<LIVE-URL>")
	s = rfc3339Time.ReplaceAllString(s, "<TIME>")
	s = clockTime.ReplaceAllString(s, "<TIME>")
	s = pinged.ReplaceAllString(s, "")
	return s
}
