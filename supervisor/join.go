package supervisor

import (
	"context"
	"strings"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/session"
)

// joinAdapter gives session.Join the browser it needs: a navigation that
// ends where the auto-submitted join form (and its 303) leads.
type joinAdapter struct {
	b       *browser.Browser
	cookies interface{ ClearCookies(context.Context) error } // the Session's browser context, or the whole browser
	p       *browser.Page
}

func (j joinAdapter) Navigate(ctx context.Context, url string) (string, int, error) {
	if err := j.p.Goto(ctx, url); err != nil {
		return "", 0, err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	res, err := j.p.WaitLoaded(ctx, func(u string) bool { return !strings.HasPrefix(u, url) && u != "about:blank" })
	if err != nil {
		return res.URL, res.Status, err
	}
	return res.URL, res.Status, nil
}

func (j joinAdapter) ClearCookies(ctx context.Context) error { return j.cookies.ClearCookies(ctx) }

// WatchRequests checks the requests of the join's page only: other
// Sessions' pages may be loading in the same browser meanwhile.
func (j joinAdapter) WatchRequests(ctx context.Context, check func(session.JoinRequest) bool) (func(), error) {
	return j.b.ObserveRequests(ctx, func(r browser.Request) bool {
		if !j.ownFrame(r) {
			return false
		}
		return !check(session.JoinRequest{Method: r.Method, URL: r.URL, Document: r.ResourceType == "Document"})
	})
}

// ownFrame reports whether r comes from a frame of the join's page (a
// request without a frame, as a worker's, counts as its).
func (j joinAdapter) ownFrame(r browser.Request) bool {
	if r.FrameID == "" {
		return true
	}
	for _, f := range j.p.Frames() {
		if f.ID == r.FrameID {
			return true
		}
	}
	return false
}

func (j joinAdapter) Cookies(ctx context.Context, url string) ([]session.Cookie, error) {
	cs, err := j.p.Cookies(ctx, url)
	out := make([]session.Cookie, 0, len(cs))
	for _, c := range cs {
		out = append(out, session.Cookie{Name: c.Name, Value: session.NewSecret(c.Value)})
	}
	return out, err
}
