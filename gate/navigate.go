package gate

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/spec"
)

// The history's actions: loading a URL, going back and forward, each
// declared once (a [Decl]) beside its plan.

// Navigate loads an http or https URL in the top frame.
type Navigate struct{ URL string }

// Back goes one step back in the page's history.
type Back struct{}

// Forward goes one step forward in the page's history.
type Forward struct{}

// NavigateInput is browser_navigate's input.
type NavigateInput struct {
	URL string `json:"url"`
}

var navigateDecl = Decl[NavigateInput]{
	Tool:        "browser_navigate",
	Title:       "Navigate",
	Description: "Open an http(s) URL; answers with the page (new epoch).",
	Loop:        Loop{Name: "navigate", Brief: "Open an http or https URL."},
	User:        UserWords{Did: "opened a page", Refused: "page load"},
	Notes:       "opens an http(s) URL",
	Build:       func(in NavigateInput) Action { return Navigate{URL: in.URL} },
}

func (Navigate) Tool() string { return spec.ToolNavigate }

func (a Navigate) plan() plan {
	u, err := url.Parse(a.URL)
	p := plan{
		lease: navigationLease,
		dispatch: func(ctx context.Context, st *step) error {
			if err := st.r.nav.Navigate(ctx, u.String()); err != nil {
				if errors.Is(err, browser.ErrDialogOpen) {
					// The page loaded far enough to run a script that asks
					// something: opened, with a dialog to answer first.
					st.dialogOpened = true
					return nil
				}
				if f := browserFailure(err); f != nil {
					return f
				}
				return fail(spec.ReasonNavigation, "The page did not load: "+err.Error())
			}
			return nil
		},
		done: func(ctx context.Context, st *step) Result {
			return st.done(ctx, "Loaded the page; take a snapshot to see it.")
		},
	}
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		p.bad = fail(spec.ReasonBadURL, "Only absolute http and https URLs can be opened.")
	}
	return p
}

var backDecl = Decl[NoInput]{
	Tool:        "browser_back",
	Title:       "Go back",
	Description: "Go back one page; answers with it (new epoch).",
	Loop:        Loop{Name: "back", Brief: "Go back one page."},
	User:        UserWords{Did: "went back", Refused: "step back"},
	Notes:       "the result is the page it arrives at",
	Build:       func(NoInput) Action { return Back{} },
}

var forwardDecl = Decl[NoInput]{
	Tool:        "browser_forward",
	Title:       "Go forward",
	Description: "Go forward one page; answers with it (new epoch).",
	Loop:        Loop{Name: "forward", Brief: "Go forward one page."},
	User:        UserWords{Did: "went forward", Refused: "step forward"},
	Notes:       "the result is the page it arrives at",
	Build:       func(NoInput) Action { return Forward{} },
}

func (Back) Tool() string    { return spec.ToolBack }
func (Forward) Tool() string { return spec.ToolForward }

func (Back) plan() plan { return historyPlan(-1) }

func (Forward) plan() plan { return historyPlan(1) }

// historyPlan goes back (delta -1) or forward (1) and reports the page it
// arrives at, once that has loaded.
func historyPlan(delta int) plan {
	way, move := "back", func(st *step, ctx context.Context) error { return st.r.nav.Back(ctx) }
	if delta > 0 {
		way, move = "forward", func(st *step, ctx context.Context) error { return st.r.nav.Forward(ctx) }
	}
	return plan{
		lease: navigationLease,
		dispatch: func(ctx context.Context, st *step) error {
			if err := move(st, ctx); err != nil {
				if errors.Is(err, browser.ErrDialogOpen) {
					st.dialogOpened = true
					return nil
				}
				if f := browserFailure(err); f != nil {
					return f
				}
				if errors.Is(err, browser.ErrNoHistory) {
					return fail(spec.ReasonNoHistory, fmt.Sprintf("There is no page to go %s to.", way))
				}
				return fail(spec.ReasonNavigation, fmt.Sprintf("Could not go %s: %s", way, err))
			}
			return nil
		},
		done: func(ctx context.Context, st *step) Result {
			return st.done(ctx, fmt.Sprintf("Went %s; refs of the page before are stale: take a snapshot to see this one.", way))
		},
	}
}
