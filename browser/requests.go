package browser

import (
	"context"
	"strings"
	"sync"

	"github.com/chromedp/cdproto/fetch"
)

// Request is a request of a page as an observer sees it, before it is sent.
type Request struct {
	URL          string
	Method       string
	ResourceType string  // "Document" for a navigation, "XHR", "Fetch", ...
	FrameID      FrameID // the frame that made it (the frame navigated, for "Document")
	// Body is the request body when the browser reports it (form posts,
	// small fetch bodies); empty otherwise.
	Body string
}

// RequestObserver sees every request of every page before it is sent and
// returns true to block it: nothing reaches the server, and the browser
// answers the request itself with 204 No Content, so a blocked navigation
// leaves the current document in place.
type RequestObserver func(Request) (block bool)

// ObserveRequests calls fn for every request the browser makes from now
// until stop is called, on the goroutine that handles the request (fn must
// be quick and safe for concurrent use). It is for conformance checks that
// must see, and may stop, what the page sends; the Company headers are added
// as usual to a request that is not blocked.
func (b *Browser) ObserveRequests(ctx context.Context, fn RequestObserver) (stop func(), err error) {
	b.mu.Lock()
	b.nextObserver++
	key := b.nextObserver
	if b.observers == nil {
		b.observers = map[uint64]RequestObserver{}
	}
	b.observers[key] = fn
	b.mu.Unlock()
	return func() {
		b.mu.Lock()
		delete(b.observers, key)
		b.mu.Unlock()
	}, nil
}

// observe runs the observers on a paused request and reports whether one
// of them blocks it.
func (b *Browser) observe(ev fetch.EventRequestPaused) bool {
	b.mu.Lock()
	obs := make([]RequestObserver, 0, len(b.observers))
	for _, fn := range b.observers {
		obs = append(obs, fn)
	}
	b.mu.Unlock()
	if len(obs) == 0 {
		return false
	}
	r := Request{URL: ev.Request.URL, Method: ev.Request.Method, ResourceType: string(ev.ResourceType), FrameID: FrameID(ev.FrameID)}
	var body strings.Builder
	for _, e := range ev.Request.PostDataEntries {
		body.Write(e.Bytes)
	}
	r.Body = body.String()
	block := false
	for _, fn := range obs {
		if fn(r) {
			block = true
		}
	}
	return block
}

// failRequest blocks a paused request by answering it with 204.
func (b *Browser) failRequest(ev fetch.EventRequestPaused) error {
	return b.conn.Root().Call(b.ctx, fetch.CommandFulfillRequest, fetch.FulfillRequestParams{
		RequestID: ev.RequestID, ResponseCode: 204,
	}, nil)
}

// maxWatchedRequests bounds what [Page.WatchSent] keeps.
const maxWatchedRequests = 64

// WatchSent records the requests of the page's own scripts that carry a
// body (not GET or HEAD, not a navigation) from now until stop, which
// returns them (URL and method; no body), those of frames no longer in the
// page left out. It is how the gate reports honestly what a page sent
// that marks cannot stop (a fetch with a form's data).
func (p *Page) WatchSent(ctx context.Context) (stop func() []Request) {
	var (
		mu   sync.Mutex
		seen []Request
	)
	end, _ := p.b.ObserveRequests(ctx, func(r Request) bool {
		if r.Method == "GET" || r.Method == "HEAD" || r.ResourceType == "Document" {
			return false
		}
		mu.Lock()
		if len(seen) < maxWatchedRequests {
			seen = append(seen, Request{URL: r.URL, Method: r.Method, ResourceType: r.ResourceType, FrameID: r.FrameID})
		}
		mu.Unlock()
		return false
	})
	return func() []Request {
		end()
		ours := map[FrameID]bool{}
		for _, f := range p.Frames() {
			ours[f.ID] = true
		}
		mu.Lock()
		defer mu.Unlock()
		var out []Request
		for _, r := range seen {
			if ours[r.FrameID] {
				out = append(out, r)
			}
		}
		return out
	}
}
