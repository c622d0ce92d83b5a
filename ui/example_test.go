package ui_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/ui"
)

// The runtime starts the live view on loopback and shows its URL, with the
// token, to the User only (terminal, stderr, or --live-url-file).
func ExampleNewLive() {
	ctl := control.New(nil)
	var agentTab *browser.Page // the agent's main tab, from browser.Browser.NewPage
	live, err := ui.NewLive(&ui.LiveOptions{
		Control: ctl,
		Page:    func() *browser.Page { return agentTab },
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := live.Start(); err != nil {
		fmt.Println(err)
		return
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		live.Shutdown(ctx)
	}()
	u := live.URL()
	fmt.Println(strings.HasPrefix(u, "http://localhost:"), strings.Contains(u, "/live?token="))
	// Output: true true
}
