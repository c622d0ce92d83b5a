package agent

import (
	"errors"
	"strings"
	"testing"

	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/gate/gatetest"
	"github.com/poppy-browser/poppy-browser/marks/markstest"
)

// TestLoopHearsTheUser: the User's message at hand back (100 KB with
// escape sequences) reaches the model once, as the User's own turn, capped
// and cleaned (control's audit test checks its audit line).
func TestLoopHearsTheUser(t *testing.T) {
	ctx := testCtx(t)
	f := gatetest.New()
	sc := markstest.CheckInScan()
	sc.Elements[2].Value = "aisle"
	f.Page.SetScan("main", sc, "")
	model := NewScripted(checkInScript(demoTaskText))
	loop := NewLoop(&LoopOptions{Gate: f.Gate, Model: model})
	said := "done, I picked 14C \x1b[31m\x1b]0;pwned\x07" + strings.Repeat("x", 100<<10)

	changes, stop := f.Control.Subscribe()
	defer stop()
	userDone := make(chan error, 1)
	go func() {
		userDone <- func() error {
			for {
				select {
				case e := <-changes:
					if e.Kind != control.Offered {
						continue
					}
				case <-ctx.Done():
					return errors.New("no offer of control came")
				}
				if err := f.Control.User().Take(ctx); err != nil {
					return err
				}
				f.Page.SetScan("main", boardingPassScan(), "boarding-pass")
				return f.Control.User().HandBackSaying(ctx, said)
			}
		}()
	}()
	if _, err := loop.Run(ctx, demoTaskText); err != nil {
		t.Fatal(err)
	}
	if err := <-userDone; err != nil {
		t.Fatal(err)
	}
	heard := model.Heard()
	want := control.CleanUserMessage(said)
	if len(heard) != 1 || heard[0] != want {
		t.Fatalf("the model heard %d messages (%.60q), want the User's cleaned message once", len(heard), heard)
	}
	if !strings.HasPrefix(want, "done, I picked 14C") || strings.ContainsAny(want, "\x1b\x07") || len([]rune(want)) > control.MaxUserMessage {
		t.Errorf("cleaned message %.80q: escape sequences left or longer than %d runes", want, control.MaxUserMessage)
	}
}
