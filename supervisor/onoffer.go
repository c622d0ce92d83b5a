package supervisor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/session"
	"github.com/poppy-browser/poppy-browser/ui"
)

// DefaultOnOfferTimeout bounds one run of the --on-offer command.
const DefaultOnOfferTimeout = 20 * time.Second

// OfferNotice is what the --on-offer command reads on its standard input:
// the User's link for the offer (a secret, for the User alone) and the
// offer. Never in its arguments or environment, so ps shows none of it.
type OfferNotice struct {
	Link    string    `json:"link"`
	Expires time.Time `json:"expires"`
	Company string    `json:"company"`
	Offer   struct {
		ID     string `json:"id"`
		Reason string `json:"reason"`
	} `json:"offer"`
}

// offerLinks keeps the one link minted for each offer, so every channel
// that reaches the User (--on-offer, the terminal UI) gives the same
// single-use link. No MCP message carries it (docs/architecture.md's third
// invariant).
type offerLinks struct {
	mu    sync.Mutex
	offer string
	link  ui.Link
}

// OfferLink is the User's single-use link for the open offer id, minted on
// the first call. It fails without a live view or when id is not the open
// offer. Give it only to the User (never to the model).
func (ss *Session) OfferLink(id string) (ui.Link, error) {
	if ss.live == nil {
		return ui.Link{}, errors.New("no live view")
	}
	ss.links.mu.Lock()
	defer ss.links.mu.Unlock()
	if ss.links.offer == id && id != "" {
		return ss.links.link, nil
	}
	l, err := ss.live.MintLink(id, false)
	if err != nil {
		return ui.Link{}, err
	}
	ss.links.offer, ss.links.link = id, l
	return l, nil
}

// MintLink is a single-use link to the live view without an offer (a User
// who wants in), read-only when asked (watch, never take).
func (ss *Session) MintLink(readOnly bool) (ui.Link, error) {
	if ss.live == nil {
		return ui.Link{}, errors.New("no live view")
	}
	return ss.live.MintLink("", readOnly)
}

// ViewerConnected reports whether a viewer is connected to the Session's
// live view.
func (ss *Session) ViewerConnected() bool { return ss.live != nil && ss.live.ViewerConnected() }

// onOffer runs command (sh -c) for each offer of control with an
// [OfferNotice] on its standard input, each run in its own goroutine,
// bounded by timeout, with the allowlisted environment of the credential
// command. A failure is logged; nothing waits for it. A worker of the
// Session's: when it ends, it ends the runs and waits for them.
func (ss *Session) onOffer(command string, timeout time.Duration) worker {
	if timeout <= 0 {
		timeout = DefaultOnOfferTimeout
	}
	var wg sync.WaitGroup // the runs
	watch := follow(ss.control, func(ctx context.Context, e control.Event) {
		if e.Kind != control.Offered || e.Offer == nil {
			return
		}
		link, err := ss.OfferLink(e.Offer.ID)
		if err != nil {
			ss.log.Warn("--on-offer: no link for the offer", "offer", e.Offer.ID, "err", err)
			return
		}
		var n OfferNotice
		n.Link, n.Expires, n.Company = link.URL, link.Expires, ss.srv.companyName()
		n.Offer.ID, n.Offer.Reason = e.Offer.ID, e.Offer.Reason
		wg.Go(func() {
			if err := runOnOffer(ctx, command, timeout, n); err != nil {
				ss.log.Warn("--on-offer command failed", "offer", n.Offer.ID, "err", err)
			}
		})
	})
	return func(ctx context.Context) error {
		defer wg.Wait() // no run starts after watch returns
		return watch(ctx)
	}
}

// runOnOffer runs command once with n on its standard input. Its output is
// discarded: it may echo the link.
func runOnOffer(ctx context.Context, command string, timeout time.Duration, n OfferNotice) error {
	in, err := json.Marshal(n)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, fmt.Errorf("timed out after %s", timeout))
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.Env = session.CommandEnv(os.Environ())
	cmd.Stdin = bytes.NewReader(append(in, '\n'))
	// Its own process group, killed whole at the bound.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Start(); err != nil {
		return err
	}
	err = cmd.Wait()
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return err
}
