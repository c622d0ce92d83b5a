package main

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/session"
	"github.com/poppy-browser/poppy-browser/spec"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// TestStdioJoinsWhenTheCompanyComesBack: `mcp` over stdio started while the
// Company's site is down answers tool calls with failed,
// company_unreachable, naming the Company and the last error; once the
// site answers on its address the runtime discovers it, joins (the
// Session's guest signed in, the join and later Company requests carrying
// Poppy-Extensions, navigator.poppy in the Company's frames), and the same
// MCP session's tools work.
func TestStdioJoinsWhenTheCompanyComesBack(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	bin := buildBinary(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	pubOut, err := exec.CommandContext(ctx, bin, "dev-credential", "--public").Output()
	if err != nil {
		t.Fatalf("dev-credential --public: %v", err)
	}
	pub, err := session.ParsePublicKey(pubOut)
	if err != nil {
		t.Fatal(err)
	}
	site, err := testsite.New(&testsite.Options{TrustedKeys: []ed25519.PublicKey{pub}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { site.Close() })
	// The site's address, free now and taken by the site later.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	caFile := filepath.Join(home, "ca.pem")
	if err := os.WriteFile(caFile, site.CAPEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{"mcp", "--company", "https://" + testsite.CompanyDomain + "/",
		"--assertion-cmd", bin + " dev-credential", "--ca-file", caFile}
	for _, h := range testsite.Hosts() {
		args = append(args, "--resolve", h+"="+addr)
	}

	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr syncBuffer
	done := make(chan error, 1)
	runCtx, stopRun := context.WithCancel(ctx)
	go func() {
		done <- run(runCtx, args, inR, outW, &stderr)
		outW.Close()
	}()
	t.Cleanup(func() {
		stopRun()
		inW.Close()
		<-done
	})
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "model", Version: "1"}, nil).
		Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	call := func(tool string, args map[string]any) (map[string]any, string, bool) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v\nstderr:\n%s", tool, err, stderr.String())
		}
		var out map[string]any
		raw, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatalf("%s: %s: %v", tool, raw, err)
		}
		return out, contentText(res), res.IsError
	}

	first, _, isErr := call(spec.ToolSnapshot, nil)
	msg, _ := first["message"].(string)
	if first["outcome"] != "failed" || first["reason"] != string(spec.ReasonCompanyUnreachable) || !isErr {
		t.Fatalf("snapshot while the Company is down: %v (isError %v), want failed company_unreachable\nstderr:\n%s", first, isErr, stderr.String())
	}
	t.Logf("while down: %s", msg)
	if !strings.Contains(msg, testsite.CompanyDomain) || !strings.Contains(msg, "refused") || strings.Count(msg, ". ") > 0 {
		t.Errorf("company_unreachable message %q: want one sentence naming the Company and the last error (connection refused)", msg)
	}
	if st, _, _ := call(spec.ToolControlStatus, nil); !strings.Contains(st["message"].(string), testsite.CompanyDomain) {
		t.Errorf("control status while the Company is down: %v, want its message to name the Company", st)
	}
	if len(site.Joins()) != 0 {
		t.Fatalf("joins before the site started: %v", site.Joins())
	}

	if err := site.Start(addr); err != nil {
		t.Fatal(err)
	}
	var snap map[string]any
	var text string
	waitUntil(t, ctx, "a snapshot succeeds once the Company answers", func() bool {
		var isErr bool
		snap, text, isErr = call(spec.ToolSnapshot, map[string]any{"since": 0})
		if snap["outcome"] == "done" {
			return true
		}
		if snap["reason"] != string(spec.ReasonCompanyUnreachable) || !isErr {
			t.Fatalf("snapshot while the runtime rejoins: %v (isError %v), want done or company_unreachable\nstderr:\n%s", snap, isErr, stderr.String())
		}
		return false
	})
	if !strings.Contains(text, "Demo Airline") || !strings.Contains(text, "Signed in as "+session.DevSubject) {
		t.Errorf("snapshot after the Company came back: want the airline with the Session's guest signed in, got %q", text)
	}
	const header = `"browser-control";v="1"`
	if js := site.Joins(); len(js) != 1 || !js[0].OK || js[0].Extensions != header {
		t.Errorf("joins after the Company came back: %+v, want one accepted join with Poppy-Extensions %s", js, header)
	}
	if r, _, _ := call(spec.ToolNavigate, map[string]any{"url": testsite.CheckInURL()}); r["outcome"] != "done" {
		t.Fatalf("navigate after the join: %v", r)
	}
	if _, err := site.WaitFrameReport(ctx, func(f testsite.FrameReport) bool {
		return f.Host == testsite.PayHost && f.HasPoppy && f.Controller == "agent"
	}); err != nil {
		t.Errorf("pay.airline.test frame never read navigator.poppy.controller = agent: %v", err)
	}
	reqs := site.Requests(testsite.CompanyDomain)
	if len(reqs) == 0 || reqs[len(reqs)-1].Header.Get(spec.HeaderExtensions) != header {
		t.Errorf("the Company's last request lacks Poppy-Extensions %s", header)
	}
	if !strings.Contains(stderr.String(), "answers: joining") {
		t.Errorf("stderr does not tell the User the Company answered:\n%s", stderr.String())
	}
}
