package audit

// observer is one function registered with [Log.Observe].
type observer struct{ fn func(Entry) }

// Observe calls fn with every entry recorded from now on, in order, until
// the returned function is called. fn runs while the log is locked: it must
// return at once and must not record into the log (the terminal UI hands
// entries to a queue). Observe on a nil *Log does nothing.
func (a *Log) Observe(fn func(Entry)) (stop func()) {
	if a == nil || fn == nil {
		return func() {}
	}
	if a.parent != nil {
		session := a.session
		return a.parent.Observe(func(e Entry) {
			if e.Session == session {
				fn(e)
			}
		})
	}
	o := &observer{fn: fn}
	a.mu.Lock()
	if a.obs == nil {
		a.obs = map[*observer]struct{}{}
	}
	a.obs[o] = struct{}{}
	a.mu.Unlock()
	return func() {
		a.mu.Lock()
		delete(a.obs, o)
		a.mu.Unlock()
	}
}

// watcher is one function registered with [Log.WatchHealth].
type watcher struct{ fn func(error) }

// WatchHealth calls fn when the log stops being writable (with the
// error) and when it is again (with nil), until the returned function is
// called. fn must not record into the log.
func (a *Log) WatchHealth(fn func(error)) (stop func()) {
	if a == nil || fn == nil {
		return func() {}
	}
	if a.parent != nil {
		return a.parent.WatchHealth(fn)
	}
	w := &watcher{fn: fn}
	a.mu.Lock()
	if a.watchers == nil {
		a.watchers = map[*watcher]struct{}{}
	}
	a.watchers[w] = struct{}{}
	a.mu.Unlock()
	return func() {
		a.mu.Lock()
		delete(a.watchers, w)
		a.mu.Unlock()
	}
}

// announce tells the watchers, if the log's health changed, that it
// cannot be written (err) or can again (nil). a.mu is not held.
func (a *Log) announce(fns []func(error), err error) {
	for _, fn := range fns {
		fn(err)
	}
}

// settleLocked records the outcome of a flush and returns the watchers to
// tell when the health changed. a.mu is held.
func (a *Log) settleLocked(err error) []func(error) {
	was := a.failure != nil
	a.failure = err
	if was == (err != nil) {
		return nil
	}
	fns := make([]func(error), 0, len(a.watchers))
	for w := range a.watchers {
		fns = append(fns, w.fn)
	}
	return fns
}
