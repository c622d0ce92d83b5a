package ui

import (
	"time"

	"github.com/gorilla/websocket"
)

// flush returns a channel closed once every message queued so far has
// been written, or the client has gone.
func (c *client) flush() chan struct{} {
	ch := make(chan struct{})
	select {
	case c.flushed <- ch:
	case <-c.done:
		close(ch)
	}
	return ch
}

// writeQueued writes the messages waiting in send, for a flush.
func (c *client) writeQueued() {
	for {
		select {
		case b := <-c.send:
			_ = c.conn.SetWriteDeadline(time.Now().Add(writeTimeout))
			if err := c.conn.WriteMessage(websocket.TextMessage, b); err != nil {
				return
			}
		default:
			return
		}
	}
}
