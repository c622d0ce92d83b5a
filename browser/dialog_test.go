package browser_test

import (
	"context"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
)

func dialogSite(t *testing.T) *site {
	s := newSite(t)
	button := func(onclick string) string {
		return `<body style="margin:0"><button style="` + fixedBox + `;top:0" onclick="` + onclick + `">go</button></body>`
	}
	s.html("company.test/alert", `<title>alert</title>`+button(`alert('Your session ends soon'); document.title = 'after'`))
	s.html("company.test/confirm", `<title>confirm</title>`+button(`document.title = 'answer:' + confirm('Delete it?')`))
	s.html("company.test/prompt", `<title>prompt</title>`+button(`document.title = 'name:' + prompt('Name?', 'x')`))
	s.html("company.test/loop", `<title>loop</title>`+button(`for (let i = 0; i < 40; i++) alert('again ' + i); document.title = 'out'`))
	return s
}

func title(t *testing.T, ctx context.Context, p *browser.Page) string {
	t.Helper()
	v, err := evalIn(ctx, p.MainFrame(), `function(){ return document.title }`)
	if err != nil {
		t.Fatalf("reading the title: %v", err)
	}
	return v
}

// TestAlertOnClickReturnsAtOnce: a click that opens an alert returns in
// about a second with ErrDialogOpen and the dialog reported (it used to
// hang 60 s); calls on the page fail at once while it is open; answering it
// lets the page go on.
func TestAlertOnClickReturnsAtOnce(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	b := launchSite(t, ctx, dialogSite(t), nil)
	p := openPage(t, ctx, b)
	if _, err := p.Navigate(ctx, "http://company.test/alert"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err := p.Click(ctx, 100, 30)
	within(t, "a click that opens an alert", start, 3*time.Second)
	wantErr(t, "the click", err, browser.ErrDialogOpen)
	d, open := p.Dialog()
	if !open || d.Type != "alert" || d.Message != "Your session ends soon" {
		t.Fatalf("dialog %+v open=%v, want the alert", d, open)
	}
	if tab := p.Tabs().List(ctx)[0]; tab.Dialog == nil || tab.Dialog.Type != "alert" {
		t.Errorf("the tab list does not show the dialog: %+v", tab)
	}
	start = time.Now()
	_, err = evalIn(ctx, p.MainFrame(), `function(){ return document.title }`)
	within(t, "a script call while the dialog is open", start, time.Second)
	wantErr(t, "a script call", err, browser.ErrDialogOpen)
	_, err = p.Navigate(ctx, "http://company.test/confirm")
	wantErr(t, "a navigation", err, browser.ErrDialogOpen)

	if err := p.HandleDialog(ctx, true, ""); err != nil {
		t.Fatal(err)
	}
	poll(t, ctx, "the page to go on after the alert", func() bool { return title(t, ctx, p) == "after" })
	if err := p.HandleDialog(ctx, true, ""); err != browser.ErrNoDialog {
		t.Errorf("answering twice: %v, want ErrNoDialog", err)
	}
}

// TestConfirmAndPromptAnswers: the answer reaches the page as given.
func TestConfirmAndPromptAnswers(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	b := launchSite(t, ctx, dialogSite(t), nil)
	p := openPage(t, ctx, b)
	for _, c := range []struct {
		url, prompt, want string
		accept            bool
	}{
		{"http://company.test/confirm", "", "answer:false", false},
		{"http://company.test/confirm", "", "answer:true", true},
		{"http://company.test/prompt", "Ada", "name:Ada", true},
		{"http://company.test/prompt", "", "name:null", false},
	} {
		if _, err := p.Navigate(ctx, c.url); err != nil {
			t.Fatal(err)
		}
		wantErr(t, "the click", p.Click(ctx, 100, 30), browser.ErrDialogOpen)
		if err := p.HandleDialog(ctx, c.accept, c.prompt); err != nil {
			t.Fatal(err)
		}
		poll(t, ctx, c.want, func() bool { return title(t, ctx, p) == c.want })
	}
}

// TestDialogLoopDoesNotStall: a page that opens dialogs in a loop is
// answered a few times, then the browser dismisses the rest itself and
// says so; the page finishes and the tab goes on working.
func TestDialogLoopDoesNotStall(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	b := launchSite(t, ctx, dialogSite(t), nil)
	p := openPage(t, ctx, b)
	if _, err := p.Navigate(ctx, "http://company.test/loop"); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "the click", p.Click(ctx, 100, 30), browser.ErrDialogOpen)
	for {
		if _, open := p.Dialog(); !open {
			// The page may open its next dialog while this runs.
			if v, err := evalIn(ctx, p.MainFrame(), `function(){ return document.title }`); err == nil && v == "out" {
				break
			}
			continue
		}
		if err := p.HandleDialog(ctx, true, ""); err != nil && err != browser.ErrNoDialog {
			t.Fatal(err)
		}
		if ctx.Err() != nil {
			t.Fatal("the dialog loop never ended")
		}
	}
	ds := p.Dialogs()
	if len(ds) == 0 || !ds[len(ds)-1].Dismissed {
		t.Errorf("the last dialogs are not reported as dismissed: %+v", ds)
	}
	if _, err := p.Navigate(ctx, "http://company.test/alert"); err != nil {
		t.Fatalf("navigating after the loop: %v", err)
	}
}

// TestBeforeUnload: leaving a page that asks first returns at once with
// the beforeunload dialog; accepting it lets the navigation go on.
func TestBeforeUnload(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	s := dialogSite(t)
	s.html("company.test/unsaved", `<title>unsaved</title><body style="margin:0"><input style="`+fixedBox+`;top:0">
<script>addEventListener("beforeunload", e => { e.preventDefault(); e.returnValue = "" })</script></body>`)
	b := launchSite(t, ctx, s, nil)
	p := openPage(t, ctx, b)
	if _, err := p.Navigate(ctx, "http://company.test/unsaved"); err != nil {
		t.Fatal(err)
	}
	if err := p.Click(ctx, 100, 30); err != nil { // a user gesture: the page may now ask
		t.Fatal(err)
	}
	start := time.Now()
	_, err := p.Navigate(ctx, "http://company.test/alert")
	within(t, "a navigation away from a page that asks first", start, 3*time.Second)
	wantErr(t, "the navigation", err, browser.ErrDialogOpen)
	if d, open := p.Dialog(); !open || d.Type != "beforeunload" {
		t.Fatalf("dialog %+v open=%v, want beforeunload", d, open)
	}
	if err := p.HandleDialog(ctx, true, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := p.WaitLoaded(ctx, func(u string) bool { return u == "http://company.test/alert" }); err != nil {
		t.Fatalf("the navigation did not go on after leaving was accepted: %v", err)
	}
}
