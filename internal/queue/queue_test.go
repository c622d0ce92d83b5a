package queue_test

import (
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/internal/queue"
)

const bound = 5 * time.Second

func TestPushNeverBlocksAndKeepsOrder(t *testing.T) {
	q := queue.New[int]()
	defer q.Stop()
	for i := range 10000 { // nobody reads yet: a bounded queue would block here
		q.Push(i)
	}
	for want := range 10000 {
		select {
		case got := <-q.Out():
			if got != want {
				t.Fatalf("value %d arrived as %d: order lost", want, got)
			}
		case <-time.After(bound):
			t.Fatalf("value %d did not arrive within %s", want, bound)
		}
	}
}

func TestCloseDeliversWhatIsQueuedThenCloses(t *testing.T) {
	q := queue.New[string]()
	q.Push("a")
	q.Push("b")
	q.Close()
	q.Push("after close")
	var got []string
	timeout := time.After(bound)
	for {
		select {
		case v, ok := <-q.Out():
			if !ok {
				if len(got) != 2 || got[0] != "a" || got[1] != "b" {
					t.Fatalf("got %q before the close, want [a b]", got)
				}
				return
			}
			got = append(got, v)
		case <-timeout:
			t.Fatalf("Out was not closed within %s after Close (got %q)", bound, got)
		}
	}
}

func TestStopDropsQueuedValuesAndClosesOut(t *testing.T) {
	q := queue.New[int]()
	q.Push(1)
	q.Push(2)
	q.Stop() // returns only once the goroutine has gone
	q.Stop() // twice is fine
	for v := range q.Out() {
		// The pump may have handed over the first value before Stop; never more.
		if v != 1 {
			t.Fatalf("received %d after Stop", v)
		}
	}
}
