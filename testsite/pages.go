package testsite

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"

	"github.com/poppy-browser/poppy-browser/spec"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// templates holds one parsed template set per page, each with the layout.
type templates struct {
	pages map[string]*template.Template
}

// parseTemplates parses every page under templates/ with the layout.
func parseTemplates() (*templates, error) {
	pageNames := []string{
		"home", "booking", "check-in", "check-in-unmarked", "boarding-pass",
		"popup", "tamper", "frame", "landing", "user-turn",
	}
	pageNames = append(pageNames, checkFixtureNames()...)
	t := &templates{pages: map[string]*template.Template{}}
	for _, name := range pageNames {
		p, err := template.ParseFS(templateFS, "templates/layout.html", "templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("parsing template %s: %w", name, err)
		}
		t.pages[name] = p.Lookup(name + ".html")
	}
	return t, nil
}

// pageData is what every page template may use.
type pageData struct {
	Title    string
	SignedIn bool
	Guest    string // the join credential's sub, while SignedIn
	Booking  string
	Seat     string
	Host     string
}

// render executes the named page into a buffer first, so a template error
// becomes a clean 500.
func (s *Site) render(w http.ResponseWriter, r *http.Request, name string, d pageData) {
	d.Guest, d.SignedIn = s.signedIn(r)
	d.Booking = BookingID
	d.Host = hostOf(r)
	var buf bytes.Buffer
	if err := s.tmpl.pages[name].Execute(&buf, d); err != nil {
		s.log.Debug("render", "page", name, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(buf.Bytes())
}

// page returns a handler that renders a page with a title.
func (s *Site) page(name, title string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.render(w, r, name, pageData{Title: title})
	}
}

// booking wraps h so that only BookingID exists.
func booking(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("id") != BookingID {
			http.NotFound(w, r)
			return
		}
		h(w, r)
	}
}

// common registers what every host serves: /static/, /report, /api/ping.
func (s *Site) common(mux *http.ServeMux) {
	sub, _ := fs.Sub(staticFS, "static") // "static" is embedded above
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(sub)))
	mux.HandleFunc("POST /report", s.serveReport)
	mux.HandleFunc("GET /api/ping", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"ok": true, "host": hostOf(r)})
	})
}

// airlineMux serves airline.test and www.airline.test.
func (s *Site) airlineMux() http.Handler {
	mux := http.NewServeMux()
	s.common(mux)
	mux.HandleFunc("GET /{$}", s.page("home", "Home"))
	mux.HandleFunc("GET "+spec.WellKnownPath, s.servePoppyJSON)
	mux.HandleFunc("POST /poppy/browser-session", s.serveJoin)
	mux.HandleFunc("GET /bookings/{id}", booking(s.page("booking", "Booking")))
	mux.HandleFunc("GET /bookings/{id}/check-in", booking(s.page("check-in", "Check in")))
	mux.HandleFunc("POST /bookings/{id}/check-in", booking(s.serveCheckIn))
	mux.HandleFunc("GET /bookings/{id}/boarding-pass", booking(s.serveBoardingPass))
	mux.HandleFunc("GET /fixtures/check-in-unmarked", s.page("check-in-unmarked", "Check in (no marks)"))
	mux.HandleFunc("GET /fixtures/popup", s.page("popup", "Popup"))
	mux.HandleFunc("GET /fixtures/poppy-tamper", s.page("tamper", "Tamper"))
	s.serveCheckFixtures(mux)
	mux.HandleFunc("GET /fixtures/user-turn", s.page("user-turn", "The User's turn"))
	mux.HandleFunc("GET /fixtures/cookie", serveCookieFixture)
	mux.HandleFunc("GET "+ClockFixturePath, serveClockFixture)
	s.markFixtures(mux)
	webmcpFixtures(mux)
	s.serveShop(mux)
	mux.HandleFunc("GET /fixtures/redirect-offsite", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://"+PartnerHost+"/landing", http.StatusFound)
	})
	return mux
}

// frameMux serves pay.airline.test.
func (s *Site) frameMux() http.Handler {
	mux := http.NewServeMux()
	s.common(mux)
	mux.HandleFunc("GET /frame", s.page("frame", "Payment"))
	s.serveCheckFrame(mux)
	return mux
}

// partnerMux serves partner.test, the third party.
func (s *Site) partnerMux() http.Handler {
	mux := http.NewServeMux()
	s.common(mux)
	mux.HandleFunc("GET /frame", s.page("frame", "Partner offers"))
	mux.HandleFunc("GET /landing", s.page("landing", "Partner landing"))
	s.markFixtures(mux)
	webmcpFixtures(mux)
	serveCorpus(mux)
	return mux
}

// serveCheckIn records a check-in and redirects to the boarding pass. The
// passport number is read only to learn whether one was given.
func (s *Site) serveCheckIn(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormSize)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	seat := r.PostForm.Get("seat")
	switch seat {
	case "aisle", "window", "middle":
	default:
		http.Error(w, "choose a seat: aisle, window or middle", http.StatusBadRequest)
		return
	}
	c := CheckIn{
		Booking:       BookingID,
		Seat:          seat,
		Controller:    r.PostForm.Get("controller"),
		PassportGiven: r.PostForm.Get("passport_number") != "",
		Upgrade:       r.PostForm.Get("upgrade") == "1",
		Host:          hostOf(r),
	}
	s.mu.Lock()
	s.lastSeat = seat
	s.mu.Unlock()
	s.rec.addCheckIn(c)
	s.log.Debug("check-in", "seat", c.Seat, "controller", c.Controller, "passport_given", c.PassportGiven)
	http.Redirect(w, r, "/bookings/"+BookingID+"/boarding-pass", http.StatusSeeOther)
}

func (s *Site) serveBoardingPass(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	seat := s.lastSeat
	s.mu.Unlock()
	s.render(w, r, "boarding-pass", pageData{Title: "Boarding pass", Seat: seat})
}

// reportBody mirrors what report.js and tamper.js send.
type reportBody struct {
	Event      string   `json:"event"`
	HasPoppy   bool     `json:"hasPoppy"`
	Controller *string  `json:"controller"`
	Keys       []string `json:"keys"`
	After      string   `json:"after"`
}

func (s *Site) serveReport(w http.ResponseWriter, r *http.Request) {
	var b reportBody
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxFormSize)).Decode(&b); err != nil {
		http.Error(w, "bad report", http.StatusBadRequest)
		return
	}
	f := FrameReport{Host: hostOf(r), Event: b.Event, HasPoppy: b.HasPoppy, Keys: b.Keys, After: b.After}
	if b.Controller != nil {
		f.Controller = *b.Controller
	}
	s.rec.addReport(f)
	w.WriteHeader(http.StatusNoContent)
}

// CookieFixturePath is a page that shows the fixture cookie the browser
// sent (CookieFixtureName), and sets it first to the value of its set
// query parameter when there is one: a test of cookie isolation between
// browser contexts.
const (
	CookieFixturePath = "/fixtures/cookie"
	CookieFixtureName = "fixture_cookie"
)

func serveCookieFixture(w http.ResponseWriter, r *http.Request) {
	shown := "no " + CookieFixtureName
	if c, err := r.Cookie(CookieFixtureName); err == nil {
		shown = CookieFixtureName + ": " + c.Value
	}
	if v := r.URL.Query().Get("set"); v != "" {
		c := &http.Cookie{Name: CookieFixtureName, Value: v, Path: "/", Secure: true, HttpOnly: true, SameSite: http.SameSiteLaxMode}
		if err := c.Valid(); err != nil {
			http.Error(w, "bad cookie value", http.StatusBadRequest)
			return
		}
		http.SetCookie(w, c)
		shown = "set " + CookieFixtureName
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, "<!doctype html><title>Cookie</title><h1>Cookie</h1><p id=\"cookie\">%s</p>\n", template.HTMLEscapeString(shown))
}

// ClockFixturePath is a page whose clock changes its text 10 times a
// second: a screencast of it sends frames all the time (bench/sessions
// -viewers -page ticking).
const ClockFixturePath = "/fixtures/clock"

func serveClockFixture(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprint(w, `<!doctype html><title>Clock</title><h1>Clock</h1><p id="clock" style="font-size:48px">0</p>
<script src="/static/clock.js"></script>
`)
}
