package ui

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
)

// The User's own browser basics, in their turn only: back, forward,
// reload, typed navigation and the tabs. The agent's side is the gate's;
// these are the User's hands on the browser, as its toolbar would be.

// tabMsg is one tab in the state; URL and Title are the website's text.
type tabMsg struct {
	Index  int    `json:"index"`
	URL    string `json:"url"`
	Title  string `json:"title,omitempty"`
	Active bool   `json:"active,omitempty"`
}

// tabsListWait bounds reading the tabs' titles from the browser process.
const tabsListWait = 2 * time.Second

// tabsOf lists the tabs of p's group, or nil when there is one.
func tabsOf(p *browser.Page) []tabMsg {
	ts := p.Tabs()
	if ts == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), tabsListWait)
	defer cancel()
	list := ts.List(ctx)
	if len(list) < 2 {
		return nil
	}
	out := make([]tabMsg, len(list))
	for i, t := range list {
		out[i] = tabMsg{Index: t.Index, URL: t.URL, Title: t.Title, Active: t.Active}
	}
	return out
}

// typedURL reads what the User typed in the address field as a web
// address: a bare host or path gets https://; only http and https go.
func typedURL(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", errors.New("no address")
	}
	if !strings.Contains(s, "://") {
		s = "https://" + s
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", errors.New("not a web address")
	}
	return u.String(), nil
}

// navigate runs a "nav" message: back, forward, reload, or go to a typed
// address. It answers with an error message the User can read; the
// commits are recorded as the User's by the supervisor's watch.
func (l *Live) navigate(ctx context.Context, p *browser.Page, m inMsg) string {
	var err error
	switch m.Action {
	case "back":
		_, err = p.Back(ctx)
		if errors.Is(err, browser.ErrNoHistory) {
			return "there is no page to go back to"
		}
	case "forward":
		_, err = p.Forward(ctx)
		if errors.Is(err, browser.ErrNoHistory) {
			return "there is no page to go forward to"
		}
	case "reload":
		err = p.Goto(ctx, p.URL())
	case "go":
		u, uerr := typedURL(m.URL)
		if uerr != nil {
			return "that is " + uerr.Error() + ": type a web address such as example.com"
		}
		err = p.Goto(ctx, u)
	default:
		return "unknown browser action"
	}
	if err != nil {
		l.log.Debug("live view navigation failed", "action", m.Action, "err", err)
		return "the page did not load"
	}
	return ""
}

// tab runs a "tab" message: select or close tab Index.
func (l *Live) tab(ctx context.Context, p *browser.Page, m inMsg) string {
	ts := p.Tabs()
	if ts == nil || m.Index == nil {
		return "no such tab"
	}
	var err error
	switch m.Action {
	case "select":
		_, err = ts.Select(ctx, *m.Index)
	case "close":
		if len(ts.List(ctx)) < 2 {
			return "the last tab stays open: the agent needs a page"
		}
		err = ts.Close(ctx, *m.Index)
	default:
		return "unknown tab action"
	}
	if err != nil {
		l.log.Debug("live view tab action failed", "action", m.Action, "err", err)
		return "the tab did not " + m.Action
	}
	l.broadcastState()
	return ""
}
