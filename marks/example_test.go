package marks_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/marks"
)

// checkInPage is a Company page whose check-in form is the User's to submit.
const checkInPage = `<!doctype html><title>Check in</title>
<form data-poppy-user-step="submission" name="check-in">
  <label>Seat <select name="seat"><option>14C</option><option>14D</option></select></label>
  <button>Check in</button>
</form>`

// The gate's use of the package: install the scanner once, scan a frame,
// and check an action before dispatching it.
func ExampleCheck() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, checkInPage)
	}))
	defer srv.Close()

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := browser.Launch(ctx, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer b.Close()
	if err := b.SetScript(ctx, "marks", marks.Script()); err != nil {
		fmt.Println(err)
		return
	}
	p, err := b.NewPage(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := p.Navigate(ctx, srv.URL+"/check-in"); err != nil {
		fmt.Println(err)
		return
	}
	f := p.MainFrame()
	s, err := marks.ScanFrame(ctx, f)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range s.Elements {
		if !e.Actionable || e.Tag == "form" {
			continue
		}
		v, err := marks.Check(ctx, f, marks.Action{Kind: "click", ID: e.ID})
		switch {
		case err != nil:
			fmt.Println(err)
		case v.Stale:
			fmt.Printf("%s %q: stale_ref\n", e.Role, e.Name)
		case len(v.Marks) > 0:
			fmt.Printf("%s %q: user_step (%s)\n", e.Role, e.Name, v.Marks[0].Kind)
		case v.Obscured:
			fmt.Printf("%s %q: obscured\n", e.Role, e.Name)
		default:
			fmt.Printf("%s %q: allowed\n", e.Role, e.Name)
		}
	}
	// Output:
	// combobox "Seat": allowed
	// button "Check in": user_step (submission)
}
