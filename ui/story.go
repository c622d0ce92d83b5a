package ui

import (
	"context"

	"github.com/poppy-browser/poppy-browser/control"
)

// storyMsg is what happened last, for the User: their hand back, cancel or
// decline, or the end of the agent's task. Message is the agent's own last
// words (its "done" text) on "finished".
type storyMsg struct {
	Kind    string `json:"kind"` // handed_back, cancelled, declined, finished
	Message string `json:"message,omitempty"`
}

// storyOf is the latest of the User's returns and declines, or the end of
// the task once [Live.Finish] said so.
func (l *Live) storyOf(st control.Status) *storyMsg {
	l.mu.Lock()
	fin := l.finished
	l.mu.Unlock()
	if fin != nil {
		return fin
	}
	r, d := st.LastReturn, st.Declined
	switch {
	case r != nil && (d == nil || !d.At.After(r.At)):
		return &storyMsg{Kind: string(r.How)}
	case d != nil:
		return &storyMsg{Kind: "declined"}
	}
	return nil
}

// Finish tells every viewer that the agent's task is over, with the
// agent's last message ("" when it left none, as when an MCP session
// ends; the first call's message stays), and waits until each has been sent it or ctx ends: the viewers
// then show the end, not a lost connection, when the live view closes.
func (l *Live) Finish(ctx context.Context, message string) {
	l.mu.Lock()
	if l.finished == nil {
		l.finished = &storyMsg{Kind: "finished", Message: message}
	}
	cs := make([]*client, 0, len(l.clients))
	for c := range l.clients {
		cs = append(cs, c)
	}
	l.mu.Unlock()
	var sent []chan struct{}
	for _, c := range cs {
		l.queueState(c)
		sent = append(sent, c.flush())
	}
	for _, ch := range sent {
		select {
		case <-ch:
		case <-ctx.Done():
			return
		}
	}
}
