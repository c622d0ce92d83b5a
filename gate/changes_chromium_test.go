package gate

import (
	"fmt"
	"strings"
	"testing"

	"github.com/poppy-browser/poppy-browser/spec"
)

// basketPage is a shop's basket on one document: adding a bag changes the
// basket's line and adds a line to the marked checkout form; removing the
// note takes an element away. Its long list never changes.
var basketPage = `<!doctype html><title>Basket</title>
<nav aria-label="Shop"><a href="/help">Help</a> <a href="/basket" id="count">Basket (0)</a></nav>
<h1>Bags</h1>
<ul>` + bagItems(30) + `</ul>
<button onclick="add()">Add the daypack</button>
<p id="note">Free returns within 30 days. <button onclick="document.getElementById('note').remove()">Hide this note</button></p>
<h2>Checkout</h2>
<form action="/ordered" method="post" data-poppy-user-step="submission">
  <label>Name <input name="name"></label>
  <ul id="lines"></ul>
  <button type="submit">Place order</button>
</form>
<script>
let n = 0
function add() {
  n++
  document.getElementById("count").textContent = "Basket (" + n + ")"
  const li = document.createElement("li")
  li.innerHTML = '<label>Daypack ' + n + ' gift wrap <input type="checkbox" name="wrap' + n + '"></label>'
  document.getElementById("lines").append(li)
}
</script>`

func bagItems(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `<li><a href="/bag/%d">Bag %d</a></li>`, i, i)
	}
	return b.String()
}

// TestChromiumChangesSinceTheLastLook: after an action on the same
// document, the MCP server's result (DoAndSeeChanges) shows only what
// changed, with the marks on it and the legend, and the page line with
// the controller; the refs the model holds stay valid, a removed
// element's ref is stale, and the gate decides as it did on the whole
// page.
func TestChromiumChangesSinceTheLastLook(t *testing.T) {
	g, _, ctx := chromiumGate(t)
	whole := must(t, g.DoAndSeeChanges(ctx, Navigate{URL: "http://airline.test/basket"}), spec.OutcomeDone, "")
	if whole.Changes || !strings.Contains(whole.Text, `"Bag 30"`) {
		t.Fatalf("a new document is not shown whole:\n%s", whole.Text)
	}
	add := refByName(t, whole, "button", "Add the daypack")
	help := refByName(t, whole, "link", "Help")
	name := refByName(t, whole, "textbox", "Name")
	hide := refByName(t, whole, "button", "Hide this note")
	order := refByName(t, whole, "button", "Place order")

	added := must(t, g.DoAndSeeChanges(ctx, Click{Ref: add.Ref}), spec.OutcomeDone, "")
	t.Logf("after the click:\n%s", added.Text)
	if !added.Changes {
		t.Fatalf("the click's result shows the whole page:\n%s", added.Text)
	}
	for _, want := range []string{
		fmt.Sprintf(`Page "Basket" at http://airline.test/basket (epoch %d, controller agent)`, whole.Page.Epoch),
		"\nUser steps: ", // the legend, for the mark on what changed
		`link "Basket (1)"`,
		"(user step: submission)",                 // the marked form the new line is in
		`checkbox "Daypack 1 gift wrap"`,          // the new line
		"(in form ",                               // its note
		"- h2: Checkout",                          // the heading it is under
		"[Unchanged: ",                            // the count of the rest
		"browser_snapshot with since=0 reads the", // and how to read it all
	} {
		if !strings.Contains(added.Text, want) {
			t.Errorf("the changes do not show %q", want)
		}
	}
	for _, unchanged := range []string{`"Bag 7"`, "Hide this note", "- h1: Bags"} {
		if strings.Contains(added.Text, unchanged) {
			t.Errorf("the changes show the unchanged %q", unchanged)
		}
	}
	wrap := refByName(t, added, "checkbox", "Daypack 1 gift wrap")
	if !strings.Contains(added.Text, wrap.Ref) {
		t.Errorf("the new checkbox's ref %s is not in the changes", wrap.Ref)
	}

	// The refs read before still act; the gate decides the same.
	// Typing changes the field alone: the result says so, without a page.
	typed := must(t, g.DoAndSeeChanges(ctx, Type{Ref: name.Ref, Text: "Ada"}), spec.OutcomeDone, "")
	if typed.Text != "" || !strings.Contains(typed.Message, "Nothing else on the page changed") {
		t.Errorf("typing into the field alone: %q\n%s", typed.Message, typed.Text)
	}
	must(t, g.DoAndSeeChanges(ctx, Click{Ref: wrap.Ref}), spec.OutcomeDone, "")
	denied := must(t, g.DoAndSeeChanges(ctx, Click{Ref: order.Ref}), spec.OutcomeDenied, spec.ReasonUserStep)
	if denied.Mark == nil || denied.Mark.Touches != order.Ref {
		t.Errorf("the order button's denial: %+v", denied.Mark)
	}
	if suite.site.requested("POST /ordered") {
		t.Fatal("the marked form was submitted")
	}

	// A removed element's ref is stale; the look says the block is gone.
	hidden := must(t, g.DoAndSeeChanges(ctx, Click{Ref: hide.Ref}), spec.OutcomeDone, "")
	t.Logf("after hiding the note:\n%s", hidden.Text)
	if !hidden.Changes || strings.Contains(hidden.Text, "Free returns") || !strings.Contains(hidden.Text, "elements "+hide.Ref) {
		t.Errorf("the changes after hiding the note:\n%s", hidden.Text)
	}
	if r := g.Do(ctx, Click{Ref: hide.Ref}); r.Outcome != spec.OutcomeDenied && r.Outcome != spec.OutcomeFailed || r.Reason != spec.ReasonStaleRef {
		t.Errorf("a removed element's ref: %s/%s (%s), want stale_ref", r.Outcome, r.Reason, r.Message)
	}

	// browser_snapshot: by default what changed (here nothing), with
	// since=0 the whole page, with since of an epoch not the page's the
	// whole page too.
	same := must(t, g.Do(ctx, Snapshot{SinceLast: true}), spec.OutcomeDone, "")
	if !same.Changes || !strings.Contains(same.Text, "Nothing changed since your last look") {
		t.Errorf("a look at an unchanged page:\n%s", same.Text)
	}
	all := must(t, g.Do(ctx, Snapshot{}), spec.OutcomeDone, "")
	if all.Changes || !strings.Contains(all.Text, `"Bag 7"`) || !strings.Contains(all.Text, `value="Ada"`) {
		t.Errorf("the whole page:\n%s", all.Text)
	}
	old := must(t, g.Do(ctx, Snapshot{Since: whole.Page.Epoch + 100}), spec.OutcomeDone, "")
	if old.Changes {
		t.Errorf("since an epoch not the page's shows changes:\n%s", old.Text)
	}
	// The help link, read at the first look, still leads on.
	must(t, g.DoAndSeeChanges(ctx, Click{Ref: help.Ref}), spec.OutcomeDone, "")
}

// extrasPage grows marks on one document: "Show the extras" adds a block
// with a field the User fills (interaction) and a form the User submits
// (submission); "Lock the seat" marks the seat select that was there.
var extrasPage = `<!doctype html><title>Extras</title>
<h1>Your trip</h1>
<ul>` + bagItems(20) + `</ul>
<label>Seat <select id="seat"><option>14C</option><option>14D</option></select></label>
<button onclick="lock()">Lock the seat</button>
<button onclick="show()">Show the extras</button>
<div id="extras"></div>
<script>
function lock() { document.getElementById("seat").setAttribute("data-poppy-user-step", "interaction") }
function show() {
  document.getElementById("extras").innerHTML = '<h2>Extras</h2>' +
    '<label>Loyalty number <input name="loyalty" data-poppy-user-step="interaction"></label>' +
    '<form action="/insure" method="post" data-poppy-user-step="submission">' +
    '<label>Insured name <input name="insured"></label><button type="submit">Buy insurance</button></form>' +
    '<a href="/help">Help with extras</a>'
}
</script>`

// TestChromiumChangesShowEveryMark: a look with only the changes shows
// every mark on what changed, new elements and an element that became
// marked alike, each line as the whole page shows it, with the legend;
// and the gate refuses the marked steps it shows.
func TestChromiumChangesShowEveryMark(t *testing.T) {
	g, _, ctx := chromiumGate(t)
	whole := must(t, g.DoAndSeeChanges(ctx, Navigate{URL: "http://airline.test/extras"}), spec.OutcomeDone, "")
	if strings.Contains(whole.Text, "user step") {
		t.Fatalf("the page shows a mark before any:\n%s", whole.Text)
	}
	lock := refByName(t, whole, "button", "Lock the seat")
	show := refByName(t, whole, "button", "Show the extras")
	seat := refByName(t, whole, "combobox", "Seat")

	shown := must(t, g.DoAndSeeChanges(ctx, Click{Ref: show.Ref}), spec.OutcomeDone, "")
	locked := must(t, g.DoAndSeeChanges(ctx, Click{Ref: lock.Ref}), spec.OutcomeDone, "")
	all := must(t, g.Do(ctx, Snapshot{Since: 0}), spec.OutcomeDone, "")
	wholeLines := map[string]bool{}
	for _, l := range strings.Split(all.Text, "\n") {
		wholeLines[strings.TrimSpace(l)] = true
	}
	for _, look := range []Result{shown, locked} {
		t.Logf("what changed:\n%s", look.Text)
		if !look.Changes || !strings.Contains(look.Text, "\nUser steps: ") || strings.Contains(look.Text, `"Bag 7"`) {
			t.Errorf("not a look with only the changes and the legend:\n%s", look.Text)
		}
		for _, e := range look.Elements {
			if e.Marked == nil {
				continue
			}
			for _, l := range strings.Split(look.Text, "\n") {
				if !strings.Contains(l, "["+e.Ref+"]") {
					continue
				}
				if !strings.Contains(l, "(user step: "+string(e.Marked.Kind)) {
					t.Errorf("the line of marked %s lacks its mark: %q", e.Ref, l)
				}
				if !wholeLines[strings.TrimSpace(l)] {
					t.Errorf("the line of %s is not as the whole page shows it: %q", e.Ref, l)
				}
			}
		}
	}
	for _, want := range []struct {
		look             Result
		role, name, note string
	}{
		{shown, "textbox", "Loyalty number", "(user step: interaction)"},
		{shown, "form", "", "(user step: submission)"},
		{shown, "button", "Buy insurance", "(user step: submission form "},
		{locked, "combobox", "Seat", "(user step: interaction)"},
	} {
		if !strings.Contains(want.look.Text, want.note) {
			t.Errorf("the look lacks %s %q's mark %q:\n%s", want.role, want.name, want.note, want.look.Text)
		}
	}
	if strings.Contains(locked.Text, "Loyalty number") {
		t.Errorf("the second look shows the unchanged extras again:\n%s", locked.Text)
	}
	// The gate refuses what the looks show as the User's.
	denied := must(t, g.DoAndSeeChanges(ctx, Select{Ref: seat.Ref, Values: []string{"14D"}}), spec.OutcomeDenied, spec.ReasonUserStep)
	if denied.Mark == nil || denied.Mark.Kind != spec.Interaction {
		t.Errorf("the locked seat's denial: %+v", denied.Mark)
	}
	buy := refByName(t, shown, "button", "Buy insurance")
	must(t, g.DoAndSeeChanges(ctx, Click{Ref: buy.Ref}), spec.OutcomeDenied, spec.ReasonUserStep)
	if suite.site.requested("POST /insure") {
		t.Fatal("the marked form was submitted")
	}
}
