package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// httpRuntime is an `mcp --http` runtime run in the test's process.
type httpRuntime struct {
	stderr          syncBuffer
	endpoint, token string       // the MCP endpoint and its bearer token, as announced
	stop            func() error // ends it, waits, and returns what run returned
}

var announced = regexp.MustCompile(`at (http://\S+) with the header: Authorization: Bearer (\S+)`)

// startHTTPRuntime runs poppy-browser with args (an `mcp --http` command
// line) and waits until it announces its endpoint; the test's cleanup
// stops it if the test has not.
func startHTTPRuntime(t *testing.T, ctx context.Context, args []string) *httpRuntime {
	t.Helper()
	rt := &httpRuntime{}
	rt.stop = runInTest(t, ctx, args, &rt.stderr)
	waitUntil(t, ctx, "the endpoint is announced", func() bool {
		m := announced.FindStringSubmatch(rt.stderr.String())
		if m != nil {
			rt.endpoint, rt.token = m[1], m[2]
		}
		return m != nil
	})
	return rt
}

// runInTest runs poppy-browser with args in the test's process, its
// stderr into stderr; stop ends it, waits, and returns what run returned
// (the test's cleanup stops it if the test has not).
func runInTest(t *testing.T, ctx context.Context, args []string, stderr *syncBuffer) (stop func() error) {
	t.Helper()
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- run(sctx, args, strings.NewReader(""), &bytes.Buffer{}, stderr) }()
	var once sync.Once
	var err error
	stop = func() error {
		once.Do(func() { cancel(); err = <-done })
		return err
	}
	t.Cleanup(func() { _ = stop() })
	return stop
}
