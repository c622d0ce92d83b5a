package browser

import (
	"context"
	"fmt"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/fetch"

	cdpconn "github.com/poppy-browser/poppy-browser/browser/internal/cdp"
)

// Downloads are refused: a page cannot write to the disk of the machine the
// browser runs on. Each refused download is recorded on its tab
// ([Page.Downloads]) so the caller can say so, or fetch it for the User in
// their turn ([Page.FetchDownload], downloads.go). File choosers are
// intercepted (no dialog opens, no file is picked) and recorded
// ([Page.FileChoosers], [Page.FileRequest]): picking a file is the User's
// step, answered in their turn with [Page.ChooseFiles] (files.go).
// HTTP authentication challenges are answered with cancel (the page then
// shows the server's 401 page) and recorded ([Page.AuthChallenges]).

// Download is a download a page started and the browser refused.
type Download struct {
	URL      string
	Filename string  // the name the page suggested
	Frame    FrameID // the frame that started it
	At       time.Time
}

// FileChooser is a file picker a page opened (an <input type=file> click).
type FileChooser struct {
	Frame    FrameID
	Multiple bool
	At       time.Time
}

// AuthChallenge is an HTTP authentication challenge the browser cancelled.
type AuthChallenge struct {
	Origin string
	Scheme string // "basic", "digest", ...
	Realm  string // the server's text
	At     time.Time
}

// Downloads lists the last downloads the tab started (all refused).
func (p *Page) Downloads() []Download {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Download(nil), p.downloads...)
}

// FileChoosers lists the last file pickers the tab opened.
func (p *Page) FileChoosers() []FileChooser {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]FileChooser(nil), p.choosers...)
}

// AuthChallenges lists the last HTTP authentication challenges the tab met.
func (p *Page) AuthChallenges() []AuthChallenge {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]AuthChallenge(nil), p.auths...)
}

// applyDownloads applies Options.Downloads in a browser context ("" is
// the default one) and asks for the events that report downloads.
func (b *Browser) applyDownloads(ctx context.Context, id cdp.BrowserContextID) error {
	switch b.opts.Downloads {
	case DownloadsRefused:
	default:
		return fmt.Errorf("download policy %d is not one of the browser's", b.opts.Downloads)
	}
	return b.conn.Root().Call(ctx, cdpbrowser.CommandSetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
		Behavior: cdpbrowser.SetDownloadBehaviorBehaviorDeny, BrowserContextID: id, EventsEnabled: ptr(true),
	}, nil)
}

// watchFaults records refused downloads and cancels authentication
// challenges, on the browser session.
func (b *Browser) watchFaults(root *cdpconn.Session) {
	root.On(cdpbrowser.DownloadWillBegin.Method, func(raw jsonv2.Value) {
		ev, ok := cdpconn.Decode[cdpbrowser.EventDownloadWillBegin](raw)
		if !ok {
			return
		}
		if p := b.pageOfFrame(ev.FrameID); p != nil {
			p.mu.Lock()
			p.downloads = appendKept(p.downloads, Download{URL: ev.URL, Filename: ev.SuggestedFilename, Frame: FrameID(ev.FrameID), At: time.Now()})
			p.mu.Unlock()
		}
	})
	root.On(fetch.AuthRequired.Method, func(raw jsonv2.Value) {
		ev, ok := cdpconn.Decode[fetch.EventAuthRequired](raw)
		if !ok {
			return
		}
		if p := b.pageOfFrame(ev.FrameID); p != nil && ev.AuthChallenge != nil {
			p.mu.Lock()
			p.auths = appendKept(p.auths, AuthChallenge{Origin: ev.AuthChallenge.Origin, Scheme: ev.AuthChallenge.Scheme, Realm: ev.AuthChallenge.Realm, At: time.Now()})
			p.mu.Unlock()
		}
		b.wg.Go(func() {
			ctx, cancel := context.WithTimeout(b.ctx, cleanupTimeout)
			defer cancel()
			_ = root.Call(ctx, fetch.CommandContinueWithAuth, fetch.ContinueWithAuthParams{
				RequestID:             ev.RequestID,
				AuthChallengeResponse: &fetch.AuthChallengeResponse{Response: fetch.AuthChallengeResponseResponseCancelAuth},
			}, nil)
		})
	})
}

// pageOfFrame finds the tab a frame belongs to.
func (b *Browser) pageOfFrame(id cdp.FrameID) *Page {
	for _, t := range b.allTargets() {
		t.mu.Lock()
		_, ok := t.frames[id]
		t.mu.Unlock()
		if ok || cdp.FrameID(t.s.TargetID()) == id {
			return t.page
		}
	}
	return nil
}
