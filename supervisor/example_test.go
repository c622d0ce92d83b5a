package supervisor_test

import (
	"context"
	"fmt"
	"time"

	"github.com/poppy-browser/poppy-browser/gate"
	"github.com/poppy-browser/poppy-browser/supervisor"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// A runtime for the demo airline's website without a Session: the agent
// navigates through the gate, the page reads who holds the browser, and
// Close stops everything.
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	site, err := testsite.New(nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := site.Start("127.0.0.1:0"); err != nil {
		fmt.Println(err)
		return
	}
	defer site.Close()

	sv := supervisor.New(&supervisor.Options{
		Company: testsite.CompanyDomain,
		Join:    supervisor.JoinOptions{Skip: true},
		Browser: supervisor.BrowserOptions{Args: site.BrowserArgs()},
		Live:    supervisor.LiveOptions{Off: true},
	})
	if err := sv.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}
	res := sv.Gate().Do(ctx, gate.Navigate{URL: "https://airline.test/"})
	fmt.Println(res.Outcome, res.Page.Controller)
	fmt.Println(sv.Close())
	// Output:
	// done agent
	// <nil>
}
