package testsite

import (
	"fmt"
	"net/http"
)

// Conformance fixtures for poppy-browser check: each page under
// /fixtures/check/ has one known problem (or none), and its forms post to
// /fixtures/check/submit, which records nothing and answers a short page.
func checkFixtures() []checkFixture {
	return []checkFixture{
		{"late-marks", "check-late-marks", "Late marks"},
		{"fill-submits", "check-fill-submits", "Filling submits"},
		{"escape-submit", "check-escape-submit", "Submit outside the mark"},
		{"unknown-value", "check-unknown-value", "Unknown mark value"},
		{"submission-div", "check-submission-div", "Submission on a div"},
		{"reads-controller", "check-reads-controller", "Reads the controller"},
		{"shadow-marks", "check-shadow-marks", "Marks in a shadow root"},
		{"closed-shadow", "check-closed-shadow", "Marks in a closed shadow root"},
		{"frame-marks", "check-frame-marks", "Marks in a Company frame"},
		{"late-2s", "check-late-2s", "Marked two seconds late"},
		{"submit-reads", "check-submit-reads", "The controller on submit"},
		{"enter-escape", "check-enter-escape", "Enter outside the mark"},
		{"apply-before-pay", "check-apply-before-pay", "Apply before the marked Pay"},
		{"marked-not-default", "check-marked-not-default", "The marked submitter is not the default"},
		{"two-marked", "check-two-marked", "Two marked submitters and one unmarked"},
		{"form-attr", "check-form-attr", "Controls outside the form with form="},
		{"all-marked", "check-all-marked", "Every way out marked"},
		{"label-mark", "check-label-mark", "Marks on labels"},
		{"slow-escape", "check-slow-escape", "A way out after a second of progress"},
		{"restless", "check-restless", "A page that never settles"},
		{"same-name", "check-same-name", "A marked field shares its name"},
		{"script-pay", "check-script-pay", "A script submits from a plain button"},
		// Ways out of a form whose Pay is marked interaction (issue 44):
		// each is a route an agent's action takes to the marked step.
		{"route-formaction", "check-route-formaction", "Another form posts where Pay does"},
		{"route-implicit", "check-route-implicit", "Enter where the only submitter is a marked div"},
		{"route-link", "check-route-link", "A link to # submits the form"},
		{"route-javascript", "check-route-javascript", "A javascript: link submits the form"},
		{"route-face", "check-route-face", "A closed shadow root's button submits through ElementInternals"},
		{"route-shadow", "check-route-shadow", "An open shadow root's button submits the form"},
		{"route-late-frame", "check-route-late-frame", "A frame added late submits its parent's form"},
		{"route-keydown", "check-route-keydown", "Enter in a field outside the form submits it"},
		{"route-change", "check-route-change", "A select and a checkbox submit on change"},
		{"route-webmcp", "check-route-webmcp", "A WebMCP tool autosubmits the form"},
		// --fill commits each change as a User would.
		{"fill-select", "check-fill-select", "The plan already shows a choice"},
		{"fill-change", "check-fill-change", "Leaving the amount submits"},
		{"fill-blame", "check-fill-blame", "The note submits on change, then the email"},
	}
}

// The frame the route-late-frame fixture adds.
const checkRouteFrame = "check-route-frame-button"

// The frame of the frame-marks fixture, served by PayHost.
const checkFrameForm = "check-frame-form"

type checkFixture struct{ path, name, title string }

// CheckFixtureURLs returns the URLs of the conformance fixtures, by short name
// ("late-marks", ...).
func CheckFixtureURLs() map[string]string {
	out := map[string]string{}
	for _, f := range checkFixtures() {
		out[f.path] = "https://" + CompanyDomain + "/fixtures/check/" + f.path
	}
	return out
}

// checkFixtureNames are the templates of the fixtures.
func checkFixtureNames() []string {
	names := make([]string, len(checkFixtures()))
	for i, f := range checkFixtures() {
		names[i] = f.name
	}
	return append(names, checkFrameForm, checkRouteFrame, checkMembers, checkStaff)
}

// Pages behind a login for check's --storage-state and --header: test
// credentials, not secrets. /fixtures/check/members answers 401 without
// the cookie CheckLoginCookie=CheckLoginValue; its script marks Pay only
// when the local storage item CheckLoginStorage is "member".
// /fixtures/check/staff answers 401 without the header
// CheckStagingHeader: CheckStagingKey. Neither page shows the values.
const (
	CheckLoginCookie   = "check_member"
	CheckLoginValue    = "m-7f3a9c-login"
	CheckLoginStorage  = "check_plan"
	CheckStagingHeader = "X-Staging-Key"
	CheckStagingKey    = "sk-staging-51c2"
)

// CheckLoginURLs are the pages behind a login: "members" (a cookie and
// local storage) and "staff" (a header).
func CheckLoginURLs() map[string]string {
	return map[string]string{
		"members": "https://" + CompanyDomain + "/fixtures/check/members",
		"staff":   "https://" + CompanyDomain + "/fixtures/check/staff",
	}
}

// serveCheckLogin registers the pages behind a login.
func (s *Site) serveCheckLogin(mux *http.ServeMux) {
	signIn := func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte("<!doctype html><title>Sign in</title><p>Sign in first.</p>"))
	}
	members := s.page(checkMembers, "Members' checkout")
	mux.HandleFunc("GET /fixtures/check/members", func(w http.ResponseWriter, r *http.Request) {
		if c, err := r.Cookie(CheckLoginCookie); err != nil || c.Value != CheckLoginValue {
			signIn(w)
			return
		}
		members(w, r)
	})
	staff := s.page(checkStaff, "Staff checkout")
	mux.HandleFunc("GET /fixtures/check/staff", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(CheckStagingHeader) != CheckStagingKey {
			signIn(w)
			return
		}
		staff(w, r)
	})
}

// The templates of the pages behind a login.
const (
	checkMembers = "check-members"
	checkStaff   = "check-staff"
)

// serveCheckFixtures registers the fixtures on the Company's mux.
func (s *Site) serveCheckFixtures(mux *http.ServeMux) {
	s.serveCheckLogin(mux)
	// The sitemap check --crawl reads: the demo's pages, and one fixture
	// no page links to.
	mux.HandleFunc("GET /sitemap.xml", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/xml")
		base := "https://" + hostOf(r)
		fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>%[1]s/</loc></url>
  <url><loc>%[1]s/bookings/%[2]s</loc></url>
  <url><loc>%[1]s/fixtures/check/all-marked</loc></url>
</urlset>
`, base, BookingID)
	})
	for _, f := range checkFixtures() {
		mux.HandleFunc("GET /fixtures/check/"+f.path, s.page(f.name, f.title))
	}
	mux.HandleFunc("GET /fixtures/check/route-frame-button", s.page(checkRouteFrame, "Payment helper"))
	s.serveCheckSubmit(mux)
}

// serveCheckFrame registers the frame-marks fixture's frame on PayHost.
func (s *Site) serveCheckFrame(mux *http.ServeMux) {
	mux.HandleFunc("GET /fixtures/check/frame-form", s.page(checkFrameForm, "Check-in form"))
	s.serveCheckSubmit(mux)
}

// serveCheckSubmit answers the fixtures' form posts.
func (s *Site) serveCheckSubmit(mux *http.ServeMux) {
	mux.HandleFunc("POST /fixtures/check/submit", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte("<!doctype html><title>Submitted</title><p>Submitted.</p>"))
	})
}
