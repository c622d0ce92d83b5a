package testsite

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"
)

// Request is one request a host received, as the server saw it.
type Request struct {
	Method string
	Path   string
	Header http.Header
	Time   time.Time
}

// CheckIn is one accepted check-in. It never holds the passport number, only
// whether one was given.
type CheckIn struct {
	Booking       string
	Seat          string
	Controller    string // the hidden "controller" field as the page sent it
	PassportGiven bool
	Upgrade       bool   // submitted with the "Upgrade seat" button
	Host          string // the host that received the POST
}

// FrameReport is what a page's script reported to POST /report on its own host.
type FrameReport struct {
	Host       string
	Event      string // "load", "change", "message", "tamper", ...
	HasPoppy   bool   // 'poppy' in navigator
	Controller string // navigator.poppy?.controller, "" when null
	Keys       []string
	After      string // the value the tamper fixture read after its attempts
}

// Join is one request to the browser-session endpoint. It never holds the
// credential itself.
type Join struct {
	OK         bool
	Reason     string // empty when OK
	JTI        string
	Subject    string
	SessionID  string
	Extensions string // the raw Poppy-Extensions request header
}

// recorder holds the recorded facts. Its zero value is not usable; see newRecorder.
type recorder struct {
	mu       sync.Mutex
	requests map[string][]Request
	checkIns []CheckIn
	reports  []FrameReport
	joins    []Join
	changed  chan struct{} // closed and replaced on every new record
}

func newRecorder() *recorder {
	return &recorder{requests: map[string][]Request{}, changed: make(chan struct{})}
}

// notifyLocked wakes every waiter; r.mu must be held.
func (r *recorder) notifyLocked() {
	close(r.changed)
	r.changed = make(chan struct{})
}

func (r *recorder) addRequest(host string, req Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests[host] = append(r.requests[host], req)
	r.notifyLocked()
}

func (r *recorder) addCheckIn(c CheckIn) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.checkIns = append(r.checkIns, c)
	r.notifyLocked()
}

func (r *recorder) addReport(f FrameReport) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reports = append(r.reports, f)
	r.notifyLocked()
}

func (r *recorder) addJoin(j Join) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.joins = append(r.joins, j)
	r.notifyLocked()
}

func (r *recorder) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests = map[string][]Request{}
	r.checkIns, r.reports, r.joins = nil, nil, nil
	r.notifyLocked()
}

// Requests returns a copy of every request host received since New or Reset,
// oldest first. host is a bare host name such as "airline.test".
func (s *Site) Requests(host string) []Request {
	s.rec.mu.Lock()
	defer s.rec.mu.Unlock()
	reqs := s.rec.requests[host]
	out := make([]Request, len(reqs))
	for i, r := range reqs {
		r.Header = r.Header.Clone()
		out[i] = r
	}
	return out
}

// CheckIns returns a copy of the accepted check-ins, oldest first.
func (s *Site) CheckIns() []CheckIn {
	s.rec.mu.Lock()
	defer s.rec.mu.Unlock()
	return slices.Clone(s.rec.checkIns)
}

// CheckInSummary describes the latest check-in for a person ("checked in:
// seat aisle, controller=user (the airline recorded 1 check-in)"); ok is
// false when there is none.
func (s *Site) CheckInSummary() (summary string, ok bool) {
	checkIns := s.CheckIns()
	n := len(checkIns)
	if n == 0 {
		return "", false
	}
	c, plural := checkIns[n-1], "s"
	if n == 1 {
		plural = ""
	}
	return fmt.Sprintf("checked in: seat %s, controller=%s (the airline recorded %d check-in%s)", c.Seat, c.Controller, n, plural), true
}

// FrameReports returns a copy of the reports pages sent, oldest first.
func (s *Site) FrameReports() []FrameReport {
	s.rec.mu.Lock()
	defer s.rec.mu.Unlock()
	out := make([]FrameReport, len(s.rec.reports))
	for i, f := range s.rec.reports {
		f.Keys = slices.Clone(f.Keys)
		out[i] = f
	}
	return out
}

// Joins returns a copy of the browser-session requests, oldest first.
func (s *Site) Joins() []Join {
	s.rec.mu.Lock()
	defer s.rec.mu.Unlock()
	return slices.Clone(s.rec.joins)
}

// Reset forgets every recorded request, check-in, frame report and join. It
// keeps the signed-in sessions and the used jti values, so a replay stays a
// replay across tests.
func (s *Site) Reset() {
	s.rec.reset()
}

// WaitFor calls cond after every new record until it returns true or ctx is
// done. cond may call the Site's accessors.
func (s *Site) WaitFor(ctx context.Context, cond func() bool) error {
	for {
		s.rec.mu.Lock()
		ch := s.rec.changed
		s.rec.mu.Unlock()
		if cond() {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("waiting for a testsite record: %w", context.Cause(ctx))
		}
	}
}

// WaitCheckIns waits until at least n check-ins are recorded and returns them.
func (s *Site) WaitCheckIns(ctx context.Context, n int) ([]CheckIn, error) {
	var got []CheckIn
	err := s.WaitFor(ctx, func() bool {
		got = s.CheckIns()
		return len(got) >= n
	})
	return got, err
}

// WaitFrameReport waits for a frame report that match accepts and returns
// the first such one.
func (s *Site) WaitFrameReport(ctx context.Context, match func(FrameReport) bool) (FrameReport, error) {
	var found FrameReport
	err := s.WaitFor(ctx, func() bool {
		for _, f := range s.FrameReports() {
			if match(f) {
				found = f
				return true
			}
		}
		return false
	})
	return found, err
}
