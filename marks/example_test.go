package marks_test

import (
	"context"
	"fmt"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/marks"
)

// The gate's use of the package: install the scanner once, scan a frame,
// and check an action before dispatching it.
func ExampleCheck() {
	ctx := context.Background()
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
	if _, err := p.Navigate(ctx, "https://airline.test/bookings/bkg_4Rt9/check-in"); err != nil {
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
		if e.Role != "button" || e.Name != "Check in" {
			continue
		}
		v, err := marks.Check(ctx, f, marks.Action{Kind: "click", ID: e.ID})
		switch {
		case err != nil:
			fmt.Println(err)
		case v.Stale:
			fmt.Println("stale_ref")
		case len(v.Marks) > 0:
			fmt.Printf("user_step: %s (form %d)\n", v.Marks[0].Kind, v.Marks[0].Marked)
		case v.Obscured:
			fmt.Println("obscured")
		default:
			fmt.Println("click at", v.Point.X, v.Point.Y)
		}
	}
}
