package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/gorilla/websocket"

	"github.com/poppy-browser/poppy-browser/testsite"
)

// demoPassport is the passport number the auto-user types. The agent
// never sees it: the field is the User's.
const demoPassport = "X1234567"

// autoUser plays the User's part of the demo on the live view's websocket,
// as a person would with the live view page: it waits for the agent's
// offer, takes control, types a passport number and presses Check in with
// real input, waits for the airline's answer, and hands control back.
type autoUser struct {
	conn *websocket.Conn
	site *testsite.Site
	say  func(format string, args ...any)
}

func dialUser(ctx context.Context, liveURL string) (*websocket.Conn, error) {
	u, err := url.Parse(liveURL)
	if err != nil {
		return nil, fmt.Errorf("auto-user: %w", err)
	}
	ws := "ws://" + u.Host + "/live/ws?" + u.RawQuery
	conn, _, err := websocket.DefaultDialer.DialContext(ctx, ws, http.Header{"Origin": {"http://" + u.Host}})
	if err != nil {
		return nil, errors.New("auto-user: cannot connect to the live view")
	}
	return conn, nil
}

func (u *autoUser) run(ctx context.Context) (err error) {
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
	if _, err := u.site.WaitFrameReport(ctx, func(f testsite.FrameReport) bool {
		return f.Host == testsite.CompanyDomain && f.Controller == "user"
	}); err != nil {
		return fmt.Errorf("auto-user: the check-in page never read user: %w", err)
	}
	u.say("user: the airline's page now reads navigator.poppy.controller = \"user\"")
	if err := u.clickOn(ctx, `input[name="passport_number"]`); err != nil {
		return err
	}
	if err := u.send(map[string]any{"type": "text", "text": demoPassport}); err != nil {
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
	u.say("user: sees the boarding pass page and hands control back")
	if err := u.send(map[string]any{"type": "hand_back"}); err != nil {
		return err
	}
	if _, err := u.await(ctx, "state", func(m map[string]any) bool { return m["controller"] == "agent" }); err != nil {
		return err
	}
	return nil
}

func (u *autoUser) send(msg map[string]any) error {
	if err := u.conn.WriteJSON(msg); err != nil {
		return fmt.Errorf("auto-user: sending %v: %w", msg["type"], err)
	}
	return nil
}

// await reads messages until one of type typ satisfies ok.
func (u *autoUser) await(ctx context.Context, typ string, ok func(map[string]any) bool) (map[string]any, error) {
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
		if m["type"] == typ && (ok == nil || ok(m)) {
			return m, nil
		}
	}
}

// clickOn clicks the centre of the element a selector finds, once it has
// stopped moving (the check-in page changes its layout when control
// changes), with a real mouse move, press and release.
func (u *autoUser) clickOn(ctx context.Context, selector string) error {
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
