package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/testsite"
)

// connect opens n MCP sessions, as -mode says, and returns them with the
// poppy-browser processes serving them. With -mode http, idle (if not nil)
// runs once the process listens and before its first session.
func connect(ctx context.Context, poppy, cdpURL string, n int, idle func(addr, token string, proc *exec.Cmd) error) ([]*mcp.ClientSession, []*exec.Cmd, error) {
	base := []string{"mcp", "--company", testsite.CompanyDomain, "--no-join", "--cdp-url", cdpURL, "--live-url-file", ""}
	var sessions []*mcp.ClientSession
	var procs []*exec.Cmd
	if mode == "processes" {
		for i := range n {
			cmd := exec.Command(poppy, base...)
			client := mcp.NewClient(&mcp.Implementation{Name: "bench-sessions", Version: "1"}, nil)
			cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				return sessions, procs, fmt.Errorf("session %d: %w", i, err)
			}
			sessions, procs = append(sessions, cs), append(procs, cmd)
		}
		return sessions, procs, nil
	}
	addr, err := freeAddr()
	if err != nil {
		return nil, nil, err
	}
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	token := hex.EncodeToString(b)
	cmd := exec.Command(poppy, append(base, "--http", addr, "--max-sessions", fmt.Sprint(n+1))...)
	cmd.Env = append(os.Environ(), "POPPY_MCP_TOKEN="+token)
	cmd.Stderr = &runtimeLog
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	procs = append(procs, cmd)
	if err := waitListening(ctx, addr); err != nil {
		return nil, procs, err
	}
	if idle != nil {
		if err := idle(addr, token, cmd); err != nil {
			return nil, procs, err
		}
	}
	hc := &http.Client{Transport: bearer{token}}
	for i := range n {
		client := mcp.NewClient(&mcp.Implementation{Name: "bench-sessions", Version: "1"}, nil)
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/", HTTPClient: hc}, nil)
		if err != nil {
			return sessions, procs, fmt.Errorf("session %d: %w", i, err)
		}
		sessions = append(sessions, cs)
	}
	return sessions, procs, nil
}

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// waitListening waits (at most 60 s) until addr accepts connections.
func waitListening(ctx context.Context, addr string) error {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	for {
		c, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
		if err == nil {
			c.Close()
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("poppy-browser did not listen on %s within 60 s", addr)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// disconnect ends what connect opened: every session, and in http mode the
// runtime processes (a stdio process ends with its session).
func disconnect(sessions []*mcp.ClientSession, procs []*exec.Cmd, mode string) {
	for _, s := range sessions {
		s.Close()
	}
	for _, p := range procs {
		if mode == "http" {
			_ = p.Process.Signal(syscall.SIGTERM)
			_ = p.Wait()
		}
	}
}
