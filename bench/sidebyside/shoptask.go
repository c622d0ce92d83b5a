package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/spec"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// The shop task (-task shop) is ten steps in the airline's travel shop
// (testsite.ShopURL): open the shop, search for bags (200 results), filter
// them to those in stock and under €100 (in place, the same document),
// open a product, add it to the cart (in place), open the cart, go to the
// checkout, type the name, and press Place order. The checkout form is
// marked submission: poppy-browser refuses that press (user_step), and the
// task ends there, as the section 7 task shows what follows; Playwright
// MCP presses it and places the order.
//
// The model acts on the refs of what it has read of the page it is on: a
// result that shows only what changed leaves the refs it read before
// valid (less the elements it says are gone), so the element it needs
// next may be in an earlier result of the same page. A result after which
// the model does not have the element it needs next is followed by a
// snapshot, as a model would take one; so is a filter's result that does
// not show the page, since the model chooses a product from the results
// the filter left.
const (
	shopOpen     = "open the shop"
	shopSearch   = "type bag into the search box and press Enter"
	shopInStock  = "check In stock only (in place)"
	shopPrice    = "select the price Under €100 (in place)"
	shopProduct  = "click the product"
	shopAdd      = "click Add to cart (in place)"
	shopCart     = "click the link Cart (1)"
	shopCheckout = "click the link Checkout"
	shopName     = "type the full name (in place)"
	shopOrder    = "click Place order (the form is marked submission)"
)

// shopTask is one run of the shop task on one server.
type shopTask struct {
	*task
	s server
	// read are the results of the page the model is on, since the last
	// one that showed the whole page, newest last; gone are the refs
	// they said are gone from the page.
	read []*mcp.CallToolResult
	gone map[string]bool
}

// goneRE finds the elements a poppy-browser result of what changed says
// are gone.
var goneRE = regexp.MustCompile(`Gone: [^\]]*?elements ((?:e[0-9]+ ?)+)`)

// act calls a tool for step and keeps its result as read.
func (t *shopTask) act(ctx context.Context, step, tool string, args map[string]any) (*mcp.CallToolResult, error) {
	res, err := t.call(ctx, step, tool, args)
	if err != nil {
		return nil, err
	}
	if t.s.wholePage(res) {
		t.read, t.gone = t.read[:0], map[string]bool{}
	}
	t.read = append(t.read, res)
	if m := goneRE.FindStringSubmatch(firstText(res)); m != nil {
		for _, r := range strings.Fields(m[1]) {
			t.gone[r] = true
		}
	}
	return res, nil
}

// ref is the ref of the element the model needs for step: from what it
// has read of this page, newest first, else from a snapshot it takes.
func (t *shopTask) ref(ctx context.Context, step, role, name string) (string, error) {
	for i := len(t.read) - 1; i >= 0; i-- {
		if r := t.s.refOf(t.read[i], role, name); r != "" && !t.gone[r] {
			return r, nil
		}
	}
	res, err := t.act(ctx, "read the page before: "+step, "browser_snapshot", map[string]any{})
	if err != nil {
		return "", err
	}
	if r := t.s.refOf(res, role, name); r != "" {
		return r, nil
	}
	return "", fmt.Errorf("%s: no %s %q on the page", step, role, name)
}

// actOn finds the element (role, name) and calls tool on it for step with
// the extra arguments.
func (t *shopTask) actOn(ctx context.Context, step, tool, role, name string, extra map[string]any) (*mcp.CallToolResult, error) {
	ref, err := t.ref(ctx, step, role, name)
	if err != nil {
		return nil, err
	}
	args := t.s.clickArgs(ref, name)
	for k, v := range extra {
		args[k] = v
	}
	return t.act(ctx, step, tool, args)
}

// shop is the task through s's tools.
func shop(ctx context.Context, s server, t *shopTask) error {
	if _, err := t.act(ctx, shopOpen, "browser_navigate", map[string]any{"url": testsite.ShopStartURL()}); err != nil {
		return err
	}
	steps := []struct {
		step, tool, role, name string
		extra                  map[string]any
		look                   bool // the model reads the page its result left
	}{
		{shopSearch, "browser_type", "searchbox", "Search the shop", map[string]any{"text": testsite.ShopQuery, "submit": true}, false},
		{shopInStock, "browser_click", "checkbox", "In stock only", nil, true},
		{shopPrice, s.selectTool, "combobox", "Price", map[string]any{"values": []string{"Under €100"}}, true},
		{shopProduct, "browser_click", "link", testsite.ShopProduct, nil, false},
		{shopAdd, "browser_click", "button", "Add to cart", nil, false},
		{shopCart, "browser_click", "link", "Cart (1)", nil, false},
		{shopCheckout, "browser_click", "link", "Checkout", nil, false},
		{shopName, "browser_type", "textbox", "Full name", map[string]any{"text": "Ada Lovelace"}, false},
		{shopOrder, "browser_click", "button", "Place order", nil, false},
	}
	for _, st := range steps {
		res, err := t.actOn(ctx, st.step, st.tool, st.role, st.name, st.extra)
		if err != nil {
			return err
		}
		if st.look && !s.showsPage(res) {
			if _, err := t.act(ctx, "read the results after: "+st.step, "browser_snapshot", map[string]any{}); err != nil {
				return err
			}
		}
	}
	return nil
}

// runShop runs the shop task runs times on each server, alternating (the
// first server changes each run), and reports the medians.
func runShop(ctx context.Context, site *testsite.Site, servers []server, sessions []*mcp.ClientSession, runs int, out io.Writer) error {
	results := make([]taskResult, len(servers))
	var order []string
	for run := range runs {
		for k := range servers {
			i := (run + k) % len(servers)
			fmt.Fprintf(os.Stderr, "shop task, run %d, %s\n", run+1, servers[i].name)
			site.Reset()
			t := &shopTask{task: &task{cs: sessions[i], site: site}, s: servers[i]}
			orders := site.ShopOrders()
			runCtx, cancel := context.WithTimeout(ctx, 3*time.Minute)
			err := shop(runCtx, servers[i], t)
			cancel()
			if err != nil {
				return fmt.Errorf("%s, run %d: %w", servers[i].name, run+1, err)
			}
			results[i].runs = append(results[i].runs, t.calls)
			placed := "no order placed"
			if site.ShopOrders() > orders {
				placed = "an order placed by the agent"
			}
			results[i].recorded = append(results[i].recorded, placed)
			order = mergeSteps(order, t.calls)
		}
	}
	reportSteps(out, servers, results, order, "what the shop recorded")
	return nil
}

// mergeSteps adds the steps of calls that order lacks, each after the
// step before it.
func mergeSteps(order []string, calls []taskCall) []string {
	at := 0
	for _, c := range calls {
		found := -1
		for j, s := range order {
			if s == c.step {
				found = j
			}
		}
		if found < 0 {
			order = append(order[:at], append([]string{c.step}, order[at:]...)...)
			found = at
		}
		at = found + 1
	}
	return order
}

// poppyShowsPage says a poppy-browser result shows the page, whole or
// what changed.
func poppyShowsPage(res *mcp.CallToolResult) bool {
	text := firstText(res)
	return strings.Contains(text, " content from ") || strings.Contains(text, "[Nothing changed since your last look")
}

// poppyWholePage says a poppy-browser result shows the whole page: its
// text has a frame's content and does not show only what changed.
func poppyWholePage(res *mcp.CallToolResult) bool {
	if c, _ := structured(res)["changes"].(bool); c {
		return false
	}
	if o, _ := structured(res)["outcome"].(string); o != string(spec.OutcomeDone) {
		return false
	}
	return strings.Contains(firstText(res), " content from ")
}
