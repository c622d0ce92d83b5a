// Package queue is the one unbounded subscription queue of poppy-browser: a
// publisher pushes without ever blocking, and one goroutine the queue owns
// hands the values, in order, to a channel the subscriber reads.
//
// The browser's read loop (browser/internal/cdp) and the control event
// stream (package control) publish through it: neither may wait on a slow
// reader. A reader that stops reading holds its queue in memory until its
// subscription is stopped, which it must do.
package queue

import "sync"

// Queue is an unbounded FIFO drained into [Queue.Out]. Create one with
// [New]; the zero value is not usable. Its methods are safe for concurrent
// use. The goroutine New starts ends after [Queue.Close] has delivered
// everything, or at [Queue.Stop].
type Queue[T any] struct {
	out     chan T
	stopped chan struct{} // closed by Stop: drop the rest
	exited  chan struct{} // closed when the pump has returned

	mu     sync.Mutex
	cond   *sync.Cond
	items  []T
	closed bool // no more pushes
}

// New returns a queue and starts the goroutine that feeds Out.
func New[T any]() *Queue[T] {
	q := &Queue[T]{out: make(chan T), stopped: make(chan struct{}), exited: make(chan struct{})}
	q.cond = sync.NewCond(&q.mu)
	go q.pump()
	return q
}

// Out is the channel the values arrive on, in push order. It is closed
// after Close once every queued value was received, or at Stop.
func (q *Queue[T]) Out() <-chan T { return q.out }

// Push queues v. It never blocks; after Close or Stop it drops v.
func (q *Queue[T]) Push(v T) {
	q.mu.Lock()
	if !q.closed {
		q.items = append(q.items, v)
		q.cond.Signal()
	}
	q.mu.Unlock()
}

// Close ends the pushes: Out delivers what is queued, then closes. It is
// for a publisher that ends (a browser session detached) while its reader
// may still want the last values.
func (q *Queue[T]) Close() {
	q.mu.Lock()
	q.closed = true
	q.cond.Signal()
	q.mu.Unlock()
}

// Stop is the reader's cancel: it drops what is queued, closes Out and
// waits for the queue's goroutine to return. It is safe to call more than
// once and after Close.
func (q *Queue[T]) Stop() {
	q.mu.Lock()
	q.closed = true
	select {
	case <-q.stopped:
	default:
		close(q.stopped)
	}
	q.items = nil
	q.cond.Signal()
	q.mu.Unlock()
	<-q.exited
}

func (q *Queue[T]) pump() {
	defer close(q.exited)
	defer close(q.out)
	for {
		q.mu.Lock()
		for len(q.items) == 0 && !q.closed {
			q.cond.Wait()
		}
		if len(q.items) == 0 {
			q.mu.Unlock()
			return
		}
		v := q.items[0]
		var zero T
		q.items[0] = zero // let the value be collected once delivered
		q.items = q.items[1:]
		q.mu.Unlock()
		select {
		case q.out <- v:
		case <-q.stopped:
			return
		}
	}
}
