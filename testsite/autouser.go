package testsite

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/gorilla/websocket"
)

// DemoPassport is the passport number the [AutoUser] types. The agent
// never sees it: the field is the User's.
const DemoPassport = "X1234567"

// AutoUser plays the User's part of the demo on the runtime's live view
// websocket (its messages are in package ui's doc), as a person would with the
// live view page: it waits for the agent's offer, takes control, types a
// passport number and presses Check in with real input, waits for the
// airline's answer, and hands control back. It knows the demo airline's
// check-in page, hence its home here.
type AutoUser struct {
	conn *websocket.Conn
	site *Site
	say  func(format string, args ...any)
	// prove answers the live view's passkey ceremony (ProveWith).
	prove Prover
	// proveWith says what proves it's the User, for the story.
	proveWith string
}

// Prover answers a live view's passkey ceremony: the options of its
// "presence_challenge" in, the device's PublicKeyCredential (JSON) out.
type Prover func(ctx context.Context, options json.RawMessage) (json.RawMessage, error)

// ProveWith gives the auto-user a device that proves it's the User when
// the live view asks (without one, a live view that asks cannot be
// taken); device says what it is, for the story.
func (u *AutoUser) ProveWith(p Prover, device string) { u.prove, u.proveWith = p, device }

// DialAutoUser connects to the live view at liveURL (with its token) for
// the demo on site; say receives one line per step the User takes. Close
// the returned AutoUser.
func DialAutoUser(ctx context.Context, liveURL string, site *Site, say func(format string, args ...any)) (*AutoUser, error) {
	u, err := url.Parse(liveURL)
	if err != nil {
		return nil, fmt.Errorf("auto-user: %w", err)
	}
	ws := "ws://" + u.Host + u.Path + "/ws?" + u.RawQuery // the websocket is below the page
	conn, _, err := websocket.DefaultDialer.DialContext(ctx, ws, http.Header{"Origin": {"http://" + u.Host}})
	if err != nil {
		return nil, errors.New("auto-user: cannot connect to the live view")
	}
	return &AutoUser{conn: conn, site: site, say: say}, nil
}

// Close closes the websocket.
func (u *AutoUser) Close() error { return u.conn.Close() }

// Start runs [AutoUser.Run] in a goroutine. If Run fails while ctx is
// live, fail gets its error (the demo stops the agent with it). wait waits
// for Run and returns its error.
func (u *AutoUser) Start(ctx context.Context, fail func(error)) (wait func() error) {
	done := make(chan error, 1)
	go func() {
		err := u.Run(ctx)
		if err != nil && ctx.Err() == nil {
			fail(err)
		}
		done <- err
	}()
	return func() error { return <-done }
}

// Run plays the User's part once, until control is back with the agent or
// ctx ends. On an error after taking control it cancels the User's turn.
func (u *AutoUser) Run(ctx context.Context) (err error) {
	stop := context.AfterFunc(ctx, func() { u.conn.Close() })
	defer stop()
	st, err := u.await(ctx, "state", func(m map[string]any) bool { return m["offer"] != nil })
	if err != nil {
		return err
	}
	reason := ""
	if o, ok := st["offer"].(map[string]any); ok {
		reason, _ = o["reason"].(string)
	}
	u.say("user: sees the agent's offer: %s", reason)
	if p, _ := st["presence"].(map[string]any); p != nil && p["proved"] != true {
		if err := u.provePresence(ctx); err != nil {
			return err
		}
	}
	u.say("user: takes control in the live view")
	if err := u.send(map[string]any{"type": "take"}); err != nil {
		return err
	}
	if _, err := u.await(ctx, "state", func(m map[string]any) bool { return m["controller"] == "user" }); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = u.send(map[string]any{"type": "cancel"})
		}
	}()
	if _, err := u.site.WaitFrameReport(ctx, func(f FrameReport) bool {
		return f.Host == CompanyDomain && f.Controller == "user"
	}); err != nil {
		return fmt.Errorf("auto-user: the check-in page never read user: %w", err)
	}
	u.say("user: the airline's page now reads navigator.poppy.controller = \"user\"")
	if err := u.clickOn(ctx, `input[name="passport_number"]`); err != nil {
		return err
	}
	if err := u.send(map[string]any{"type": "text", "text": DemoPassport}); err != nil {
		return err
	}
	u.say("user: types a passport number into the field only they may fill in")
	if err := u.clickOn(ctx, `#check-in button[type="submit"]`); err != nil {
		return err
	}
	u.say("user: presses Check in")
	if _, err := u.site.WaitCheckIns(ctx, 1); err != nil {
		return fmt.Errorf("auto-user: the airline did not record the check-in: %w", err)
	}
	// The server recorded it; the User hands back once the browser shows
	// the boarding pass, not while the check-in page is still on screen
	// (the agent would read the old page and wait for it).
	if err := u.waitFor(ctx, "#seat"); err != nil {
		return fmt.Errorf("auto-user: the boarding pass never showed: %w", err)
	}
	u.say("user: sees the boarding pass page and hands control back")
	if err := u.send(map[string]any{"type": "hand_back"}); err != nil {
		return err
	}
	if _, err := u.await(ctx, "state", func(m map[string]any) bool { return m["controller"] == "agent" }); err != nil {
		return err
	}
	return nil
}

// provePresence runs the live view's passkey ceremony with the auto-user's
// device: the view shows the offer card only until it is done.
func (u *AutoUser) provePresence(ctx context.Context) error {
	if u.prove == nil {
		return errors.New("auto-user: the live view asks for a proof of the User's presence and the auto-user has no device")
	}
	u.say("user: proves it's them with a passkey (%s)", u.proveWith)
	if err := u.send(map[string]any{"type": "presence_begin"}); err != nil {
		return err
	}
	m, err := u.await(ctx, "presence_challenge", nil)
	if err != nil {
		return err
	}
	opts, err := json.Marshal(m["options"])
	if err != nil {
		return fmt.Errorf("auto-user: %w", err)
	}
	cred, err := u.prove(ctx, opts)
	if err != nil {
		return fmt.Errorf("auto-user: the device's passkey: %w", err)
	}
	if err := u.send(map[string]any{"type": "presence", "credential": cred}); err != nil {
		return err
	}
	if _, err := u.await(ctx, "state", func(m map[string]any) bool {
		p, _ := m["presence"].(map[string]any)
		return p != nil && p["proved"] == true
	}); err != nil {
		return err
	}
	u.say("user: the live view verified the passkey and now shows the page")
	return nil
}

func (u *AutoUser) send(msg map[string]any) error {
	if err := u.conn.WriteJSON(msg); err != nil {
		return fmt.Errorf("auto-user: sending %v: %w", msg["type"], err)
	}
	return nil
}

// await reads messages until one of type typ satisfies ok.
func (u *AutoUser) await(ctx context.Context, typ string, ok func(map[string]any) bool) (map[string]any, error) {
	for {
		var m map[string]any
		if err := u.conn.ReadJSON(&m); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("auto-user: waiting for a %s message: %w", typ, err)
		}
		if m["type"] == "error" && typ == "locate" {
			return m, nil
		}
		if m["type"] == "presence_refused" {
			return nil, fmt.Errorf("auto-user: the live view refused the passkey: %v", m["message"])
		}
		if m["type"] == typ && (ok == nil || ok(m)) {
			return m, nil
		}
	}
}

// waitFor waits, up to about 15 s, until the live view finds an element
// for selector in the page the User sees.
func (u *AutoUser) waitFor(ctx context.Context, selector string) error {
	for range 100 {
		if err := u.send(map[string]any{"type": "locate", "selector": selector}); err != nil {
			return err
		}
		box, err := u.await(ctx, "locate", nil)
		if err != nil {
			return err
		}
		if box["type"] != "error" {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(150 * time.Millisecond):
		}
	}
	return fmt.Errorf("%s is not on the page", selector)
}

// clickOn clicks the centre of the element a selector finds, once it has
// stopped moving (the check-in page changes its layout when control
// changes), with a real mouse move, press and release.
func (u *AutoUser) clickOn(ctx context.Context, selector string) error {
	var last map[string]any
	for range 50 {
		if err := u.send(map[string]any{"type": "locate", "selector": selector}); err != nil {
			return err
		}
		box, err := u.await(ctx, "locate", nil)
		if err != nil {
			return err
		}
		if box["type"] == "error" {
			box = nil
		}
		if box != nil && last != nil && box["x"] == last["x"] && box["y"] == last["y"] {
			break
		}
		last = box
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(150 * time.Millisecond):
		}
	}
	if last == nil {
		return fmt.Errorf("auto-user: cannot find %s on the page", selector)
	}
	x := last["x"].(float64) + last["width"].(float64)/2
	y := last["y"].(float64) + last["height"].(float64)/2
	for _, ev := range []string{"move", "down", "up"} {
		if err := u.send(map[string]any{"type": "mouse", "event": ev, "x": x, "y": y, "button": "left"}); err != nil {
			return err
		}
	}
	return nil
}
