package gate

// The gate runs nothing in the background, so its end is a channel, not a
// context of its own: Close closes g.closed.

// isClosed says whether Close was called.
func (g *Gate) isClosed() bool {
	select {
	case <-g.closed:
		return true
	default:
		return false
	}
}

// whenClosed calls f if the gate closes before the returned stop is
// called (context.AfterFunc, for the gate's closed channel).
func (g *Gate) whenClosed(f func()) (stop func()) {
	done := make(chan struct{})
	go func() {
		select {
		case <-g.closed:
			f()
		case <-done:
		}
	}()
	return func() { close(done) }
}
