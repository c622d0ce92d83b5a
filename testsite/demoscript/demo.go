package demoscript

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"sync"

	"github.com/poppy-browser/poppy-browser/agent"
	"github.com/poppy-browser/poppy-browser/mcpserver"
	"github.com/poppy-browser/poppy-browser/session"
	"github.com/poppy-browser/poppy-browser/supervisor"
	"github.com/poppy-browser/poppy-browser/testsite"
	"github.com/poppy-browser/poppy-browser/ui"
)

// Task is what the demo asks of the agent.
const Task = "Check me in for booking BKG4RT9 tomorrow, aisle seat"

// Options are a demo run's: the runtime's options as the flags gave them,
// and who plays which part.
type Options struct {
	// Runtime is the runtime's options; Run fills in the Company, the
	// credentials, the client and the browser flags that reach the airline.
	Runtime supervisor.Options
	// Model and MaxSteps run the built-in agent on Task.
	Model    agent.Model
	MaxSteps int
	Task     string
	// HTTP, when set, serves the agent's MCP tools there (through Serve)
	// instead of running the built-in agent.
	HTTP  net.Listener
	Serve func(context.Context, *mcpserver.Server, net.Listener) error
	// AutoUser plays the User's part too; otherwise the User is in the live
	// view, and in the terminal UI with TUI.
	AutoUser, TUI bool
	// Stdout gets the story, Stderr what only the User may see (the live
	// view's URL holds its token).
	Stdout, Stderr io.Writer
	// OnSite, when set, is given the airline (tests read what it recorded).
	OnSite func(*testsite.Site)
}

// StartSite serves the demo airline on loopback, trusting a fresh demo
// signing key, and returns the Personal Agent's signer for it.
func StartSite() (*testsite.Site, *session.KeySigner, error) {
	signer, pub, err := session.NewDemoSigner()
	if err != nil {
		return nil, nil, err
	}
	site, err := testsite.New(&testsite.Options{TrustedKeys: []ed25519.PublicKey{pub}})
	if err != nil {
		return nil, nil, err
	}
	if err := site.Start("127.0.0.1:0"); err != nil {
		return nil, nil, err
	}
	return site, signer, nil
}

// Run runs the demo: the airline, a runtime joined to its Session as a
// guest, and the built-in agent checking in, with a User (played, or in
// the live view and the terminal UI). It succeeds when the airline
// recorded the check-in and the agent reported success.
func Run(ctx context.Context, o *Options) error {
	site, signer, err := StartSite()
	if err != nil {
		return err
	}
	defer site.Close()
	if o.OnSite != nil {
		o.OnSite(site)
	}
	cfg := o.Runtime
	cfg.Company = testsite.CompanyDomain
	cfg.Join.Credentials = signer
	cfg.Join.HTTPClient = site.Client()
	cfg.Browser.Args = slices.Concat(cfg.Browser.Args, site.BrowserArgs())
	cfg.Join.ReturnTo = testsite.BookingURL()
	cfg.Live.UserMessages = o.Stderr // the live view URL holds its token: stderr, the User's channel, never the model's
	cfg.Live.SessionNote = "joined as a guest"
	cfg.Live.QuitEnds = "the demo"
	if o.AutoUser && !cfg.Live.InsecureTakeByLink {
		// The auto-user's device is paired in a store of the demo's own.
		store, dir, err := demoPasskeys()
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		cfg.Live.Passkeys = store
	}
	sv := supervisor.New(&cfg)
	if err := sv.Start(ctx); err != nil {
		return err
	}
	defer sv.Close()
	fmt.Fprintf(o.Stdout, "joined %s's Session as a guest, declaring browser-control v1; the browser is on %s\n", testsite.OrgName, sv.Page().URL())
	if o.HTTP != nil {
		srv := mcpserver.NewServer(mcpserver.Fixed(sv.Gate()), nil) // the demo's one User
		ctx, cancel := context.WithCancel(ctx)
		var wg sync.WaitGroup
		defer wg.Wait()
		defer cancel()
		if o.TUI {
			wg.Go(func() {
				if ui.ShowTUI(ctx, sv.RunTUI, sv.LiveURL(), o.Stderr) {
					cancel() // quitting the terminal UI ends the demo
				}
			})
		}
		return o.Serve(ctx, srv, o.HTTP) // the token goes where the live view's does
	}
	return runAgent(ctx, o, sv, site)
}

// runAgent runs the built-in agent on the task, with the User's part
// played or left to the User.
func runAgent(ctx context.Context, o *Options, sv *supervisor.Supervisor, site *testsite.Site) error {
	lctx, stopLoop := context.WithCancelCause(ctx)
	defer stopLoop(nil)
	storyOut := o.Stdout
	closeTUI := func() {}
	if !o.AutoUser && o.TUI {
		// The terminal UI shows the agent's actions itself; story lines
		// written under it would tear its screen. Quitting it ends the demo.
		tctx, stopTUI := context.WithCancel(ctx)
		tuiDone := make(chan struct{})
		closeTUI = func() { stopTUI(); <-tuiDone }
		defer closeTUI()
		storyOut = io.Discard
		go func() {
			defer close(tuiDone)
			if err := sv.RunTUI(tctx); err != nil {
				fmt.Fprintf(o.Stderr, "no terminal UI (%v); use the live view: %s\n", err, sv.LiveURL())
				return
			}
			if tctx.Err() == nil {
				stopLoop(errors.New("the User quit the terminal UI"))
			}
		}()
	}
	st := agent.NewTranscript(storyOut)
	if !o.AutoUser {
		st.Say("you are the User: when the agent offers control, open the live view above, take control, complete the step, and hand back")
	}
	loop := agent.NewLoop(&agent.LoopOptions{Gate: sv.Gate(), Model: o.Model, MaxSteps: o.MaxSteps, Observer: st.Event, Logger: o.Runtime.Logger})
	uctx, stopUser := context.WithCancel(ctx)
	defer stopUser()
	waitUser := func() error { return nil }
	if o.AutoUser {
		u, err := testsite.DialAutoUser(ctx, sv.LiveURL(), site, st.Say)
		if err != nil {
			return err
		}
		defer u.Close()
		if !o.Runtime.Live.InsecureTakeByLink {
			closeDevice, err := giveDevice(ctx, sv, o.Runtime.Browser.Chromium, u, st.Say)
			if err != nil {
				return err
			}
			defer closeDevice()
		}
		waitUser = u.Start(uctx, stopLoop)
	}
	report, err := loop.Run(lctx, o.Task)
	if err == nil {
		sv.Finish(ctx, report.Text) // the live view shows the end and the agent's words
	}
	// The terminal UI clears its screen as it closes: the outcome is
	// printed after it.
	closeTUI()
	if err == nil && storyOut == io.Discard && report.Text != "" {
		fmt.Fprintf(o.Stdout, "the agent finished: %s\n", report.Text)
	}
	stopUser()
	uerr := waitUser()
	if err != nil {
		if cause := context.Cause(lctx); cause != nil && ctx.Err() == nil && !errors.Is(cause, context.Canceled) {
			return fmt.Errorf("demo: %w", cause)
		}
		return fmt.Errorf("demo: %w", err)
	}
	if uerr != nil && !errors.Is(uerr, context.Canceled) {
		return fmt.Errorf("demo: %w", uerr)
	}
	summary, ok := site.CheckInSummary()
	if !ok {
		return fmt.Errorf("demo: the airline recorded no check-in (the agent's task ended: %s)", report.Reason)
	}
	fmt.Fprintln(o.Stdout, summary)
	if !report.Success {
		return fmt.Errorf("demo: the agent did not report success (%s)", report.Reason)
	}
	return nil
}
