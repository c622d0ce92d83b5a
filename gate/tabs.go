package gate

import (
	"github.com/google/jsonschema-go/jsonschema"

	"context"
	"errors"
	"fmt"
	"net/url"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/spec"
)

// Tabs lists, selects, closes or opens tabs (browser_tabs). Index names
// the tab of a select or close; URL is what a new tab loads ("" for a
// blank one). A select, close or new passes the gate like any action:
// refused while the User holds control, and under the input lease (a new
// tab with a URL under the navigation lease, which a take stops).
type Tabs struct {
	Action TabAction
	Index  *int
	URL    string
}

// TabAction is what [Tabs] does, as browser_tabs' action spells it.
type TabAction string

// Tab actions.
const (
	TabList   TabAction = "list"
	TabSelect TabAction = "select"
	TabClose  TabAction = "close"
	TabNew    TabAction = "new"
)

// TabActions lists every [TabAction], in the order the tool names them.
func TabActions() []TabAction { return []TabAction{TabList, TabSelect, TabClose, TabNew} }

// HandleDialog answers the dialog open in the active tab
// (browser_handle_dialog): Accept is OK, otherwise Cancel; PromptText is
// the answer to a prompt.
type HandleDialog struct {
	Accept     bool
	PromptText string
}

// TabsInput is browser_tabs' input.
type TabsInput struct {
	Action TabAction `json:"action"`
	Index  *int      `json:"index,omitempty" jsonschema:"tab to select or close"`
	URL    string    `json:"url,omitempty" jsonschema:"for new: a URL to open"`
}

var tabsDecl = Decl[TabsInput]{
	Tool:        "browser_tabs",
	Title:       "Manage tabs",
	Description: "List, select, close or open tabs; refs belong to one tab.",
	User:        UserWords{Did: "changed tabs", Refused: "change of tabs"},
	Notes: "`{tabs: [{index, url, title, active, opener?}]}`; popups and `target=_blank` pages are " +
		"tabs; a select, close or new is gated like any action",
	Schema: func(s *jsonschema.Schema) {
		s.Properties["action"].Enum = enum(TabActions())
		s.Properties["index"].Minimum = ptr(0.0)
	},
	Build: func(in TabsInput) Action { return Tabs{Action: in.Action, Index: in.Index, URL: in.URL} },
}

func (Tabs) Tool() string { return spec.ToolTabs }

func (a Tabs) plan() plan {
	p := plan{dialogOK: true}
	var u *url.URL
	switch a.Action {
	case TabList:
	case TabSelect, TabClose:
		p.lease = inputLease
		if a.Index == nil || *a.Index < 0 {
			p.bad = fail(spec.ReasonBadArgument, "Say which tab with index, 0 or more (see browser_tabs with action list).")
		}
	case TabNew:
		p.lease = inputLease
		if a.URL != "" {
			p.lease = navigationLease
			var err error
			u, err = url.Parse(a.URL)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				p.bad = fail(spec.ReasonBadURL, "Only absolute http and https URLs can be opened.")
			}
		}
	default:
		p.bad = fail(spec.ReasonBadArgument, "action must be list, select, close or new.")
	}
	p.dispatch = func(ctx context.Context, st *step) error {
		var err error
		switch a.Action {
		case TabSelect:
			err = st.r.tabs.SelectTab(ctx, *a.Index)
		case TabClose:
			err = st.r.tabs.CloseTab(ctx, *a.Index)
		case TabNew:
			target := ""
			if u != nil {
				target = u.String()
			}
			err = st.r.tabs.NewTab(ctx, target)
		}
		switch {
		case errors.Is(err, browser.ErrNoTab):
			return fail(spec.ReasonNoSuchTab, "There is no tab at that index; list the tabs with browser_tabs.")
		case errors.Is(err, errNoTabs):
			return fail(spec.ReasonNoPage, "This page has no tabs.")
		}
		return err
	}
	p.done = func(ctx context.Context, st *step) Result {
		r := st.r
		// The active tab may have changed: report it, in a new epoch.
		if s := r.g.current(); s != nil {
			r.use(s)
		}
		msgs := map[TabAction]string{
			TabList:   "These are the open tabs.",
			TabSelect: "Selected the tab; it is now the active one. Take a snapshot to see it.",
			TabClose:  "Closed the tab. Take a snapshot of the active tab before acting.",
			TabNew:    "Opened a new tab; it is now the active one. Take a snapshot to see it.",
		}
		res := st.done(ctx, msgs[a.Action])
		res.Tabs, _ = r.tabs.Tabs(ctx)
		return res
	}
	return p
}

// HandleDialogInput is browser_handle_dialog's input.
type HandleDialogInput struct {
	Accept     bool   `json:"accept" jsonschema:"OK (true) or Cancel"`
	PromptText string `json:"prompt_text,omitempty"`
}

var handleDialogDecl = Decl[HandleDialogInput]{
	Tool:        "browser_handle_dialog",
	Title:       "Answer a dialog",
	Description: "Answer the tab's open dialog; it blocks other actions.",
	User:        UserWords{Did: "answered the page's dialog", Refused: "answer to the dialog"},
	Notes:       "answers the open alert, confirm, prompt or beforeunload of the active tab",
	Build:       func(in HandleDialogInput) Action { return HandleDialog{Accept: in.Accept, PromptText: in.PromptText} },
}

func (HandleDialog) Tool() string { return spec.ToolHandleDialog }

func (a HandleDialog) plan() plan {
	return plan{
		dialogOK: true,
		lease:    inputLease,
		changes:  true,
		dispatch: func(ctx context.Context, st *step) error {
			if err := st.r.tabs.HandleDialog(ctx, a.Accept, a.PromptText); err != nil {
				if errors.Is(err, browser.ErrNoDialog) {
					return fail(spec.ReasonNoDialog, "No dialog is open in the active tab.")
				}
				return err
			}
			return nil
		},
		// Leaving a page after its beforeunload question is a navigation.
		settle: true,
		done: func(ctx context.Context, st *step) Result {
			if a.Accept {
				return st.done(ctx, "Answered the dialog with OK.")
			}
			return st.done(ctx, "Answered the dialog with Cancel.")
		},
	}
}

// dialogOpen refuses an action that needs the page while a dialog holds the
// tab: the page cannot run anything until the dialog is answered.
func (r *run) dialogOpen(ctx context.Context) *Result {
	if _, open := r.tabs.Dialog(); !open {
		return nil
	}
	res := r.failed(ctx, spec.ReasonDialogOpen, "A dialog is open in the tab, so the page cannot act; answer it with browser_handle_dialog (see dialog).")
	return &res
}

// browserFailure turns a failure of the browser into the failure the model
// can act on, or nil for any other error.
func browserFailure(err error) *failure {
	switch {
	case errors.Is(err, browser.ErrBrowserGone):
		return fail(spec.ReasonBrowserGone, "The browser is gone (it closed or crashed); nothing can run in it any more.")
	case errors.Is(err, browser.ErrCrashed):
		return fail(spec.ReasonCrashed, "The tab crashed; navigate it to a page to recover it.")
	case errors.Is(err, browser.ErrPageBusy):
		return fail(spec.ReasonPageBusy, "The page did not answer in time (a script keeps it busy); navigate elsewhere or try again later.")
	case errors.Is(err, browser.ErrDialogOpen):
		return fail(spec.ReasonDialogOpen, "A dialog is open in the tab; answer it with browser_handle_dialog.")
	case errors.Is(err, browser.ErrTabClosed):
		return fail(spec.ReasonTabClosed, "The tab closed; list the tabs with browser_tabs and take a snapshot of the active one.")
	}
	return nil
}

// tabState fills what a result says of tabs and dialogs: the tab's index,
// the open dialog, and, when b was read (nil: the run stopped before),
// the tabs opened since b and what else the page did.
func (r *run) tabState(ctx context.Context, res *Result, b *Activity) {
	if b != nil {
		after := r.tabs.Activity()
		saved := ""
		if r.g.saveTo != "" && len(after.Downloads) > len(b.Downloads) {
			saved = r.saveForAgent(ctx, res) // files.go
		}
		caused(res, *b, after, saved)
	}
	if d, open := r.tabs.Dialog(); open {
		res.Dialog = &d
	}
	if current := r.tabs.TabIndex(); current >= 0 {
		res.Page.Tab = &current
	}
	if b == nil {
		return
	}
	if opened := r.tabs.OpenedSince(ctx, *b); len(opened) > 0 {
		res.TabsOpened = opened
		res.Message += fmt.Sprintf(" It opened %d tab(s); the last one is now the active tab: take a snapshot to see it.", len(opened))
	}
}

// caused adds to the result's message what the page did that the agent
// cannot see in a snapshot: a download (refused, or saved: what
// saveForAgent said), a file chooser (the User's step), an authentication
// challenge (cancelled).
func caused(res *Result, before, after Activity, saved string) {
	if n := len(after.Downloads); n > len(before.Downloads) && saved != "" {
		res.Message += saved
	} else if n > len(before.Downloads) {
		res.Message += fmt.Sprintf(" The page started a download (%q), which the browser refused for the agent: downloads go to the User only, who can take it in their turn (browser_request_user_control) and save it on their device.", after.Downloads[n-1])
	}
	if after.FileChoosers > before.FileChoosers {
		res.Message += " The page opened a file chooser: choosing a file is the User's step (browser_request_user_control); no file was picked."
	}
	if after.AuthChallenges > before.AuthChallenges {
		res.Message += " The site asked for a user name and password (HTTP authentication); the browser cancelled it, and signing in there is the User's step."
	}
}

// BrowserGone reports whether the browser the gate acts in is gone (it
// closed or crashed): every action then fails with browser_gone. It never
// waits for a running action.
func (g *Gate) BrowserGone() bool {
	if g.page == nil {
		return false
	}
	p := g.page()
	return p != nil && p.BrowserGone() != nil
}
