package testsite_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/poppy-browser/poppy-browser/testsite"
)

const passport = "X9Q4417ZP"

// postCheckIn posts form to the check-in endpoint on host, following the
// redirect, and returns the final response and its body.
func postCheckIn(t *testing.T, s *testsite.Site, host string, form url.Values) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, "https://"+host+"/bookings/bkg_4Rt9/check-in", strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return do(t, s.Client(), req)
}

func TestCheckIn(t *testing.T) {
	tests := []struct {
		name string
		host string
		form url.Values
		want testsite.CheckIn
	}{
		{
			name: "user with passport",
			host: "airline.test",
			form: url.Values{"seat": {"aisle"}, "controller": {"user"}, "passport_number": {passport}},
			want: testsite.CheckIn{Booking: "bkg_4Rt9", Seat: "aisle", Controller: "user", PassportGiven: true, Host: "airline.test"},
		},
		{
			name: "agent without passport",
			host: "airline.test",
			form: url.Values{"seat": {"window"}, "controller": {"agent"}},
			want: testsite.CheckIn{Booking: "bkg_4Rt9", Seat: "window", Controller: "agent", Host: "airline.test"},
		},
		{
			name: "no extension, upgrade button, www",
			host: "www.airline.test",
			form: url.Values{"seat": {"middle"}, "controller": {""}, "upgrade": {"1"}, "passport_number": {passport}},
			want: testsite.CheckIn{Booking: "bkg_4Rt9", Seat: "middle", PassportGiven: true, Upgrade: true, Host: "www.airline.test"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, logs := startSite(t, nil)
			resp, body := postCheckIn(t, s, tc.host, tc.form)
			if resp.StatusCode != http.StatusOK || resp.Request.URL.Path != "/bookings/bkg_4Rt9/boarding-pass" {
				t.Fatalf("ended at %d %s, want 200 at the boarding pass", resp.StatusCode, resp.Request.URL)
			}
			if !strings.Contains(body, "Your boarding pass is ready") {
				t.Error("boarding pass does not say it is ready")
			}
			if !strings.Contains(body, `<dd id="seat">`+tc.want.Seat+`</dd>`) {
				t.Errorf("boarding pass does not show seat %q", tc.want.Seat)
			}
			if diff := cmp.Diff([]testsite.CheckIn{tc.want}, s.CheckIns()); diff != "" {
				t.Errorf("CheckIns (-want +got):\n%s", diff)
			}
			if strings.Contains(body, passport) {
				t.Error("boarding pass shows the passport number")
			}
			assertNoPassport(t, s, logs.String())
		})
	}
}

// assertNoPassport fails if the passport number appears in any record or log.
func assertNoPassport(t *testing.T, s *testsite.Site, logs string) {
	t.Helper()
	var all strings.Builder
	for _, h := range testsite.Hosts() {
		fmt.Fprintf(&all, "%#v\n", s.Requests(h))
	}
	fmt.Fprintf(&all, "%#v\n%#v\n%#v\n%s", s.CheckIns(), s.FrameReports(), s.Joins(), logs)
	if strings.Contains(all.String(), passport) {
		t.Error("the passport number appears in a record or log")
	}
}

func TestCheckInRefused(t *testing.T) {
	s, logs := startSite(t, nil)
	for _, seat := range []string{"", "cockpit"} {
		t.Run("seat "+seat, func(t *testing.T) {
			resp, _ := postCheckIn(t, s, "airline.test", url.Values{"seat": {seat}, "passport_number": {passport}})
			if resp.StatusCode != http.StatusBadRequest {
				t.Errorf("status = %d, want 400", resp.StatusCode)
			}
		})
	}
	if got := s.CheckIns(); len(got) != 0 {
		t.Errorf("CheckIns = %+v, want none", got)
	}
	_, body := get(t, s.Client(), "https://airline.test/bookings/bkg_4Rt9/boarding-pass", nil)
	if strings.Contains(body, "Your boarding pass is ready") {
		t.Error("boarding pass is ready without a check-in")
	}
	resp, _ := postCheckIn(t, s, "partner.test", url.Values{"seat": {"aisle"}})
	if resp.StatusCode == http.StatusOK {
		t.Error("partner.test accepted a check-in")
	}
	assertNoPassport(t, s, logs.String())
}

func TestWaitCheckIns(t *testing.T) {
	s, _ := startSite(t, nil)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	done := make(chan []testsite.CheckIn, 1)
	go func() {
		got, err := s.WaitCheckIns(ctx, 1)
		if err != nil {
			t.Errorf("waiting for one check-in: %v", err)
		}
		done <- got
	}()
	postCheckIn(t, s, "airline.test", url.Values{"seat": {"aisle"}, "controller": {"agent"}})
	select {
	case got := <-done:
		if len(got) != 1 || got[0].Controller != "agent" {
			t.Errorf("WaitCheckIns = %+v, want the agent's check-in", got)
		}
	case <-time.After(time.Minute):
		t.Fatal("waited a minute for WaitCheckIns to return, past its 30 s context")
	}
}
