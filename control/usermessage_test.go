package control_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/poppy-browser/poppy-browser/audit"
	"github.com/poppy-browser/poppy-browser/control"
)

// TestUserMessageOnReturn: the User's message at hand back, cancel or
// decline is on the status, the event and the audit line (by the User),
// cleaned; a new offer or a take clears it.
func TestUserMessageOnReturn(t *testing.T) {
	ctx := control.TestContext(t)
	var buf bytes.Buffer
	c := control.New(&control.Options{Audit: audit.New(&buf, nil)})
	events, stop := c.Subscribe()
	defer stop()
	c.RequestUser("check in", nil)
	<-events
	if err := c.User().Take(ctx); err != nil {
		t.Fatal(err)
	}
	<-events
	if err := c.User().HandBackSaying(ctx, "done, \x1b[2Jseat 14C"); err != nil {
		t.Fatal(err)
	}
	if e := <-events; e.UserMessage != "done, seat 14C" {
		t.Errorf("hand back event's message = %q", e.UserMessage)
	}
	if st := c.Status(); st.UserMessage != "done, seat 14C" {
		t.Errorf("status message = %q", st.UserMessage)
	}
	if !strings.Contains(buf.String(), `"how":"handed_back","by":"user"`) || !strings.Contains(buf.String(), `"user_message":"done, seat 14C"`) {
		t.Errorf("audit log lacks the message on the hand back line:\n%s", buf.String())
	}
	c.RequestUser("pay", nil)
	<-events
	if st := c.Status(); st.UserMessage != "" {
		t.Errorf("a new offer kept the old message %q", st.UserMessage)
	}
	if err := c.User().CancelSaying(ctx, "I don't want to pay"); err != nil {
		t.Fatal(err)
	}
	if e := <-events; e.Kind != control.Declined || e.UserMessage != "I don't want to pay" {
		t.Errorf("decline event = %s %q", e.Kind, e.UserMessage)
	}
	if st := c.Status(); st.UserMessage != "I don't want to pay" || st.Declined == nil {
		t.Errorf("status after a decline with a message = %+v", st)
	}
}
