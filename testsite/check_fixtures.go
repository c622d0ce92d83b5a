package testsite

import "net/http"

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
	}
}

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
	return append(names, checkFrameForm)
}

// serveCheckFixtures registers the fixtures on the Company's mux.
func (s *Site) serveCheckFixtures(mux *http.ServeMux) {
	for _, f := range checkFixtures() {
		mux.HandleFunc("GET /fixtures/check/"+f.path, s.page(f.name, f.title))
	}
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
