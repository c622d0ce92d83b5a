package cdp

import (
	"context"
	"errors"
	"io"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto"
)

// endedTransport is a connection whose peer has closed its side: every
// Read fails. It counts Closes.
type endedTransport struct{ closes atomic.Int32 }

func (e *endedTransport) Read(context.Context, *cdproto.Message) error  { return io.EOF }
func (e *endedTransport) Write(context.Context, *cdproto.Message) error { return io.ErrClosedPipe }
func (e *endedTransport) Close() error                                  { e.closes.Add(1); return nil }

// TestReadLoopClosesAnEndedConnection: when the peer ends the connection,
// our end is closed at once (no socket left in CLOSE-WAIT until the
// runtime exits), calls fail with ErrBrowserGone, and a later Close does
// not close twice.
func TestReadLoopClosesAnEndedConnection(t *testing.T) {
	tr := &endedTransport{}
	c := NewConn(tr)
	go c.ReadLoop(t.Context())
	select {
	case <-c.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the read loop did not end within 5 s of the peer closing")
	}
	if n := tr.closes.Load(); n != 1 {
		t.Fatalf("transport closed %d times when the peer ended it, want 1", n)
	}
	if err := c.Root().Call(t.Context(), "Browser.getVersion", nil, nil); !errors.Is(err, ErrBrowserGone) {
		t.Errorf("a call after the end: %v, want ErrBrowserGone", err)
	}
	_ = c.Close()
	if n := tr.closes.Load(); n != 1 {
		t.Errorf("transport closed %d times after Close, want 1", n)
	}
}
