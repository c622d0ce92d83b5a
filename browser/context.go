package browser

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
)

// Context is a browser context: its own cookies, storage and tabs, beside
// the others of one Chromium. A runtime serving several Users gives each
// their own ([Browser.NewContext]); a runtime serving one uses the default
// context of its first tab ([Browser.InitialPage]). Scripts set on a
// Context run in its targets only. Safe for concurrent use.
type Context struct {
	b     *Browser
	id    cdp.BrowserContextID
	owned bool // made by NewContext: Close disposes of it
}

// NewContext creates an empty browser context with no tab.
func (b *Browser) NewContext(ctx context.Context) (*Context, error) {
	res, err := cdp.Call(ctx, b.conn.Root(), target.CreateBrowserContext, target.CreateBrowserContextParams{DisposeOnDetach: ptr(true)})
	if err != nil {
		return nil, fmt.Errorf("creating a browser context: %w", err)
	}
	return &Context{b: b, id: res.BrowserContextID, owned: true}, nil
}

// Context is the browser context the page belongs to.
func (p *Page) Context() *Context { return &Context{b: p.b, id: p.browserContext} }

// InitialPage returns a blank tab of the browser as it was found: the
// about:blank tab Chromium opens at launch or, when attached, an existing
// blank tab no other page opened. Only if there is none does it open one.
// No new browser context is made, so no extra tab or profile is paid for.
func (b *Browser) InitialPage(ctx context.Context) (*Page, error) {
	ch := b.subscribePages()
	defer b.unsubscribePages(ch)
	infos, err := cdp.Call(ctx, b.conn.Root(), target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		return nil, fmt.Errorf("finding the first tab: %w", err)
	}
	var id target.ID
	for _, ti := range infos.TargetInfos {
		if ti.Type == "page" && ti.URL == "about:blank" && ti.OpenerID == "" {
			id = ti.TargetID
			break
		}
	}
	if id == "" {
		res, err := cdp.Call(ctx, b.conn.Root(), target.CreateTarget, target.CreateTargetParams{URL: "about:blank"})
		if err != nil {
			return nil, fmt.Errorf("opening the first tab: %w", err)
		}
		id = res.TargetID
	}
	return b.waitPage(ctx, ch, id, "finding the first tab")
}

// NewPage opens a tab in this context and returns it once attached.
func (c *Context) NewPage(ctx context.Context) (*Page, error) {
	ch := c.b.subscribePages()
	defer c.b.unsubscribePages(ch)
	res, err := cdp.Call(ctx, c.b.conn.Root(), target.CreateTarget, target.CreateTargetParams{
		URL:              "about:blank",
		BrowserContextID: c.id,
		NewWindow:        ptr(true),
	})
	if err != nil {
		return nil, fmt.Errorf("opening a page: %w", err)
	}
	return c.b.waitPage(ctx, ch, res.TargetID, "opening a page")
}

// waitPage waits until target id is attached and configured; ch must have
// been subscribed before the target could attach.
func (b *Browser) waitPage(ctx context.Context, ch chan *Page, id target.ID, op string) (*Page, error) {
	for {
		if p := b.pageByTarget(id); p != nil {
			// A tab that was running before we attached (the launch's
			// first tab) did not wait for us: wait until its scripts are in.
			select {
			case <-p.t.ready:
				return p, nil
			case <-ctx.Done():
				return nil, fmt.Errorf("%s: %w", op, ctx.Err())
			}
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%s: %w", op, ctx.Err())
		case <-b.conn.Done():
			return nil, fmt.Errorf("%s: %w", op, b.conn.ClosedErr())
		case <-ch:
		}
	}
}

// Pages are the open top-level pages of this context, popups included.
func (c *Context) Pages() []*Page {
	var ps []*Page
	for _, p := range c.b.Pages() {
		if p.browserContext == c.id {
			ps = append(ps, p)
		}
	}
	return ps
}

// SetScript is [Browser.SetScript] for the targets of this context only.
func (c *Context) SetScript(ctx context.Context, key string, s Script) error {
	b := c.b
	b.mu.Lock()
	if b.ctxScripts == nil {
		b.ctxScripts = map[cdp.BrowserContextID]map[string]Script{}
	}
	if b.ctxScripts[c.id] == nil {
		b.ctxScripts[c.id] = map[string]Script{}
	}
	holds := s.Holds != nil || b.ctxScripts[c.id][key].Holds != nil || b.scripts[key].Holds != nil
	b.ctxScripts[c.id][key] = s
	b.setOrderLocked(key)
	var ts []*tgt
	for _, t := range b.targets {
		if t.contextID() == c.id {
			ts = append(ts, t)
		}
	}
	b.mu.Unlock()
	return installIn(ctx, ts, key, holds)
}

// SetWindowInput is [Browser.SetWindowInput] for the pages of this context.
func (c *Context) SetWindowInput(ctx context.Context, allowed bool) error {
	b := c.b
	b.win.mu.Lock()
	if b.win.byContext == nil {
		b.win.byContext = map[cdp.BrowserContextID]bool{}
	}
	b.win.byContext[c.id] = !allowed
	b.win.mu.Unlock()
	var errs error
	for _, p := range c.Pages() {
		if err := p.syncIgnore(ctx); err != nil && !isGone(err) {
			errs = errors.Join(errs, err)
		}
	}
	return errs
}

// Close closes the context's tabs and disposes of a context NewContext
// made (its cookies and storage). The default context stays.
func (c *Context) Close(ctx context.Context) error {
	b := c.b
	b.mu.Lock()
	delete(b.ctxScripts, c.id)
	b.mu.Unlock()
	b.win.mu.Lock()
	delete(b.win.byContext, c.id)
	b.win.mu.Unlock()
	b.forgetContextDevice(c.id)
	if !c.owned {
		return nil
	}
	if err := b.conn.Root().Call(ctx, target.CommandDisposeBrowserContext, target.DisposeBrowserContextParams{BrowserContextID: c.id}, nil); err != nil && !isGone(err) {
		return fmt.Errorf("closing a browser context: %w", err)
	}
	return nil
}

// contextID is the browser context of the target's page ("" until known).
func (t *tgt) contextID() cdp.BrowserContextID {
	if t.page != nil {
		return t.page.browserContext
	}
	return ""
}

// setOrderLocked records that the script under key was set now (see
// scriptOrder). The caller holds b.mu.
func (b *Browser) setOrderLocked(key string) {
	if b.scriptOrder == nil {
		b.scriptOrder = map[string]uint64{}
	}
	b.scriptsSet++
	b.scriptOrder[key] = b.scriptsSet
}

// inOrderLocked lists the keys of scripts in the order they were last
// set. The caller holds b.mu.
func (b *Browser) inOrderLocked(scripts map[string]Script) []string {
	keys := slices.Collect(maps.Keys(scripts))
	slices.SortFunc(keys, func(x, y string) int { return cmp.Compare(b.scriptOrder[x], b.scriptOrder[y]) })
	return keys
}

// scriptsFor returns the scripts a target runs: the browser's and its
// context's. The caller holds b.mu.
func (b *Browser) scriptsForLocked(t *tgt) map[string]Script {
	out := make(map[string]Script, len(b.scripts))
	for k, v := range b.scripts {
		out[k] = v
	}
	for k, v := range b.ctxScripts[t.contextID()] {
		out[k] = v
	}
	return out
}
