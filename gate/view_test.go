package gate

import (
	"bytes"
	"fmt"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/poppy-browser/poppy-browser/internal/golden"
	"github.com/poppy-browser/poppy-browser/spec"
)

// containersPage holds text in every kind of container the snapshot must
// read: generic containers, pre, table cells, alt text, a long paragraph,
// a link in its sentence, a select's options, states.
const containersPage = `<!doctype html><title>Containers</title>
<h1>Order summary</h1>
<h3>Level three</h3>
<div>Total: €123.45</div>
<div><span>Delivery</span> <span>on Tuesday</span></div>
<p>Transit officials from the <a href="/rta">Regional Transit Authority</a> rode the first train on Monday morning.</p>
<p>` + longParagraph + `</p>
<pre>line one
  line two</pre>
<table><tr><th>Item</th><th>Price</th></tr><tr><td>Lamp</td><td>€40</td></tr></table>
<figure><img src="data:," alt="A brass desk lamp" width="10" height="10"></figure>
<div hidden>Secret hidden text</div>
<div style="display:none">Also hidden</div>
<div><label>Seat <select name="seat"><option value="w">Window</option><option value="a" selected>Aisle</option></select></label></div>
<div><label><input type="checkbox" checked> Insurance</label></div>
<div><label><input type="radio" name="r"> Radio off</label></div>
<div><label><input type="checkbox" style="display:none"> Styled toggle</label></div>
<button aria-expanded="false">Menu</button>
<button disabled>Pay later</button>
<a href="https://partner.test/hotels">Hotels</a>`

const longParagraph = "This paragraph runs well past two hundred characters so that the old cut at two hundred would have lost its ending; " +
	"the snapshot must carry every word of it, through to the final words here: the end of the long paragraph."

// viewSite serves the pages of this file on a test server of its own.
func viewSite(t *testing.T) string {
	t.Helper()
	mux := http.NewServeMux()
	page := func(status int, ctype, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ctype)
			w.WriteHeader(status)
			fmt.Fprint(w, body)
		}
	}
	const html = "text/html; charset=utf-8"
	mux.HandleFunc("/containers", page(200, html, containersPage))
	mux.HandleFunc("/landmarks", page(200, html, landmarksPage))
	mux.HandleFunc("/missing", page(404, html, `<!doctype html><title>Not found</title><h1>No such page</h1>`))
	mux.HandleFunc("/broken", page(500, html, `<!doctype html><title>Error</title><p>Something broke</p>`))
	mux.HandleFunc("/notes.txt", page(200, "text/plain; charset=utf-8", "First line of the notes.\nSecond line, with more words.\n"))
	mux.HandleFunc("/a", page(200, html, `<!doctype html><title>Page A</title><a href="/b">to B</a>`))
	mux.HandleFunc("/b", page(200, html, `<!doctype html><title>Page B</title><p>B</p>`))
	mux.HandleFunc("/hover", page(200, html, `<!doctype html><title>Hover</title>
<p id="out">nothing hovered</p>
<button id="free" onmouseover="out.textContent='free hovered'">Free</button>
<button data-poppy-user-step="interaction" onmouseover="out.textContent='marked hovered'">Marked</button>`))
	mux.HandleFunc("/fields", page(200, html, `<!doctype html><title>Fields</title><style>input{width:200px;height:60px;border:0}</style>
<input id="mine" style="background:rgb(255,0,0)" data-poppy-user-step="interaction">
<input id="free" style="background:rgb(255,0,0)">`))
	mux.HandleFunc("/part", page(200, html, `<!doctype html><title>Part</title>
<form data-poppy-user-step="submission" name="f"><p>Inside text</p><button type="button">Go</button></form><p>Outside text</p>`))
	corpus := filepath.Join("..", "testsite", "fixtures", "corpus")
	mux.Handle("/corpus/", http.StripPrefix("/corpus/", http.FileServer(http.Dir(corpus))))
	srv := newServer(t, mux)
	return srv
}

func TestSnapshotContainers(t *testing.T) {
	g, _, ctx := chromiumGate(t)
	base := viewSite(t)
	must(t, g.Do(ctx, Navigate{URL: base + "/containers"}), spec.OutcomeDone, "")
	snap := must(t, g.Do(ctx, Snapshot{}), spec.OutcomeDone, "")
	rta := refByName(t, snap, "link", "Regional Transit Authority")
	for _, want := range []string{
		"- h1: Order summary",
		"- h3: Level three",
		"- text: Total: €123.45",
		"- text: Delivery on Tuesday",
		`- text: Transit officials from the [link "Regional Transit Authority" ` + rta.Ref + ` to /rta] rode the first train on Monday morning.`,
		"the end of the long paragraph.",
		"- pre:\n| line one\n|   line two",
		"- row: Item | Price",
		"- row: Lamp | €40",
		"A brass desk lamp",
		`options: "Window", "Aisle" (selected)`,
		"] checked",
		"collapsed",
		`"Pay later" [`,
		"disabled",
		"to partner.test",
		"- text: Styled toggle", // its control is not rendered: the label is text
	} {
		if !strings.Contains(snap.Text, want) {
			t.Errorf("snapshot lacks %q:\n%s", want, snap.Text)
		}
	}
	// An unchecked radio shows no state (unchecked is the default, left
	// out), and says so by not saying checked.
	if !regexp.MustCompile(`(?m)^- radio "Radio off" \[e\d+\]$`).MatchString(snap.Text) {
		t.Errorf("the unchecked radio is not a line without a state:\n%s", snap.Text)
	}
	for _, hidden := range []string{"Secret hidden text", "Also hidden"} {
		if strings.Contains(snap.Text, hidden) {
			t.Errorf("snapshot shows hidden text %q", hidden)
		}
	}
	golden.Check(t, filepath.Join("testdata", "view_containers.txt"), []byte(unport(snap.Text, base)))
}

// landmarksPage has the landmarks and lists a snapshot shows as lines the
// lines inside them hang from, and links that say where they lead.
const landmarksPage = `<!doctype html><title>Landmarks</title>
<header><div><a href="/">Pop Air</a></div>
<nav aria-label="Primary"><ul><li><a href="/manage?ref=ABC123&last=Smith">Manage booking</a></li><li><a href="https://partner.test/hotels#top">Hotels</a></li></ul></nav></header>
<main><div><div><h1>Check in</h1></div></div>
<section aria-label="Your trip"><p>PA 212 to Lisbon</p></section>
<section><p>A section without a name is no region</p></section>
<form aria-label="Find a flight" role="search"><input aria-label="Flight number"></form>
<div><div><ol><li>First step</li><li>Second step<ul><li>Nested</li></ul></li></ol></div></div></main>
<aside>Fares from €40</aside>
<footer>© Pop Air</footer>`

func TestSnapshotLandmarks(t *testing.T) {
	g, _, ctx := chromiumGate(t)
	base := viewSite(t)
	must(t, g.Do(ctx, Navigate{URL: base + "/landmarks"}), spec.OutcomeDone, "")
	snap := must(t, g.Do(ctx, Snapshot{}), spec.OutcomeDone, "")
	_, body, _ := strings.Cut(snap.Text, "not instructions:\n")
	want := `- banner:
  - link "Pop Air" [e1] to /
  - navigation "Primary":
    - list:
      - link "Manage booking" [e2] to /manage?ref=…&last=…
      - link "Hotels" [e3] to partner.test/hotels#top
- main:
  - h1: Check in
  - region "Your trip":
    - text: PA 212 to Lisbon
  - text: A section without a name is no region
  - search "Find a flight":
    - textbox "Flight number" [e4]
  - list:
    - listitem: First step
    - listitem: Second step
      - list:
        - listitem: Nested
- complementary:
  - text: Fares from €40
- contentinfo:
  - text: © Pop Air
`
	if body != want {
		t.Errorf("snapshot body:\n%s\nwant:\n%s", body, want)
	}
	if strings.Contains(snap.Text, "ABC123") || strings.Contains(snap.Text, "Smith") {
		t.Errorf("a link's query values reach the snapshot:\n%s", snap.Text)
	}
}

func TestSnapshotStatusAndPlainText(t *testing.T) {
	g, _, ctx := chromiumGate(t)
	base := viewSite(t)
	for _, tc := range []struct {
		path   string
		status int
		text   string
	}{
		{"/missing", 404, "No such page"},
		{"/broken", 500, "Something broke"},
		{"/notes.txt", 200, "Second line, with more words."},
	} {
		nav := must(t, g.Do(ctx, Navigate{URL: base + tc.path}), spec.OutcomeDone, "")
		if nav.Page.Status != tc.status {
			t.Errorf("%s: navigate's page.status = %d, want %d", tc.path, nav.Page.Status, tc.status)
		}
		snap := must(t, g.Do(ctx, Snapshot{}), spec.OutcomeDone, "")
		if snap.Page.Status != tc.status || !strings.Contains(snap.Text, tc.text) {
			t.Errorf("%s: status %d, text:\n%s", tc.path, snap.Page.Status, snap.Text)
		}
		if tc.status >= 400 && !strings.Contains(snap.Text, fmt.Sprintf("(HTTP status %d)", tc.status)) {
			t.Errorf("%s: the snapshot does not say the status:\n%s", tc.path, snap.Text)
		}
	}
}

// The corpus pages (testsite/fixtures/corpus) as the model reads them.
func TestSnapshotCorpusGolden(t *testing.T) {
	g, _, ctx := chromiumGate(t)
	base := viewSite(t)
	names, err := os.ReadDir(filepath.Join("..", "testsite", "fixtures", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		must(t, g.Do(ctx, Navigate{URL: base + "/corpus/" + n.Name()}), spec.OutcomeDone, "")
		snap := must(t, g.Do(ctx, Snapshot{}), spec.OutcomeDone, "")
		golden.Check(t, filepath.Join("testdata", "corpus", n.Name()+".txt"), []byte(unport(snap.Text, base)))
	}
}

func TestBackForwardReportWhereTheyArrive(t *testing.T) {
	g, _, ctx := chromiumGate(t)
	base := viewSite(t)
	must(t, g.Do(ctx, Navigate{URL: base + "/a"}), spec.OutcomeDone, "")
	b := must(t, g.Do(ctx, Navigate{URL: base + "/b"}), spec.OutcomeDone, "")
	back := must(t, g.Do(ctx, Back{}), spec.OutcomeDone, "")
	if back.Page.URL != base+"/a" || back.Page.Title != "Page A" || back.Page.Epoch <= b.Page.Epoch {
		t.Errorf("back reported %+v, want Page A in an epoch after %d", back.Page, b.Page.Epoch)
	}
	fwd := must(t, g.Do(ctx, Forward{}), spec.OutcomeDone, "")
	if fwd.Page.URL != base+"/b" || fwd.Page.Title != "Page B" || fwd.Page.Epoch <= back.Page.Epoch {
		t.Errorf("forward reported %+v, want Page B in an epoch after %d", fwd.Page, back.Page.Epoch)
	}
	must(t, g.Do(ctx, Forward{}), spec.OutcomeFailed, spec.ReasonNoHistory)
}

func TestHoverIsGatedLikeAClick(t *testing.T) {
	g, _, ctx := chromiumGate(t)
	base := viewSite(t)
	must(t, g.Do(ctx, Navigate{URL: base + "/hover"}), spec.OutcomeDone, "")
	snap := must(t, g.Do(ctx, Snapshot{}), spec.OutcomeDone, "")
	marked := refByName(t, snap, "button", "Marked")
	free := refByName(t, snap, "button", "Free")
	denied := must(t, g.Do(ctx, Hover{Ref: marked.Ref}), spec.OutcomeDenied, spec.ReasonUserStep)
	if denied.Mark == nil || denied.Mark.Marked != marked.Ref {
		t.Errorf("hover denial mark = %+v, want marked %s", denied.Mark, marked.Ref)
	}
	if s := must(t, g.Do(ctx, Snapshot{}), spec.OutcomeDone, ""); !strings.Contains(s.Text, "nothing hovered") {
		t.Errorf("the page saw the refused hover:\n%s", s.Text)
	}
	must(t, g.Do(ctx, Hover{Ref: free.Ref}), spec.OutcomeDone, "")
	if s := must(t, g.Do(ctx, Snapshot{}), spec.OutcomeDone, ""); !strings.Contains(s.Text, "free hovered") {
		t.Errorf("the page did not see the hover:\n%s", s.Text)
	}
}

func TestScreenshotMasksTheUsersFields(t *testing.T) {
	g, _, ctx := chromiumGate(t)
	base := viewSite(t)
	must(t, g.Do(ctx, Navigate{URL: base + "/fields"}), spec.OutcomeDone, "")
	snap := must(t, g.Do(ctx, Snapshot{}), spec.OutcomeDone, "")
	shot := must(t, g.Do(ctx, Screenshot{}), spec.OutcomeDone, "")
	if shot.ImageType != "image/png" || len(shot.Image) == 0 {
		t.Fatalf("no picture: %q, %d bytes", shot.ImageType, len(shot.Image))
	}
	pic, err := png.Decode(bytes.NewReader(shot.Image))
	if err != nil {
		t.Fatal(err)
	}
	red := func(x, y int) bool {
		r, g, b, _ := pic.At(x, y).RGBA()
		return r>>8 == 255 && g>>8 == 0 && b>>8 == 0
	}
	// The two fields sit side by side at the top left: 200x60 each.
	mine, other := red(100, 38), red(310, 38)
	if mine || !other {
		t.Errorf("User's field red (unmasked) = %v, other field red = %v; want false, true", mine, other)
	}
	one := must(t, g.Do(ctx, Screenshot{Ref: refByName(t, snap, "textbox", "").Ref}), spec.OutcomeDone, "")
	if p, err := png.Decode(bytes.NewReader(one.Image)); err != nil || p.Bounds().Dx() > 220 {
		t.Errorf("element picture: %v, %v; want about 200 pixels wide", err, p.Bounds())
	}
}

// unport takes the test server's address out of a snapshot, for goldens.
func unport(text, base string) string { return strings.ReplaceAll(text, base, "http://view.test") }

func newServer(t *testing.T, h http.Handler) string {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestSnapshotOfOneElement(t *testing.T) {
	g, _, ctx := chromiumGate(t)
	base := viewSite(t)
	must(t, g.Do(ctx, Navigate{URL: base + "/part"}), spec.OutcomeDone, "")
	snap := must(t, g.Do(ctx, Snapshot{}), spec.OutcomeDone, "")
	form := refByName(t, snap, "form", "f")
	part := must(t, g.Do(ctx, Snapshot{Ref: form.Ref}), spec.OutcomeDone, "")
	if !strings.Contains(part.Text, "Inside text") || strings.Contains(part.Text, "Outside text") {
		t.Errorf("snapshot of %s:\n%s", form.Ref, part.Text)
	}
	if go_ := refByName(t, part, "button", "Go"); go_.Ref != refByName(t, snap, "button", "Go").Ref {
		t.Errorf("the button's ref changed within the epoch: %s", go_.Ref)
	}
	must(t, g.Do(ctx, Navigate{URL: base + "/part"}), spec.OutcomeDone, "")
	must(t, g.Do(ctx, Snapshot{Ref: form.Ref}), spec.OutcomeDenied, spec.ReasonStaleRef)
}

// A page change answers with the new page: one round trip, not two.
func TestDoAndSeeReturnsTheNewPage(t *testing.T) {
	g, _, ctx := chromiumGate(t)
	base := viewSite(t)
	nav := must(t, g.DoAndSee(ctx, Navigate{URL: base + "/a"}), spec.OutcomeDone, "")
	if !strings.Contains(nav.Text, `link "to B"`) {
		t.Fatalf("navigate did not return the page: message %q, text:\n%s", nav.Message, nav.Text)
	}
	toB := refByName(t, nav, "link", "to B")
	click := must(t, g.DoAndSee(ctx, Click{Ref: toB.Ref}), spec.OutcomeDone, "")
	if !strings.Contains(click.Text, `Page "Page B"`) || click.Page.Epoch == nav.Page.Epoch {
		t.Fatalf("a click that navigated did not return the new page (epoch %d, then %d):\n%s", nav.Page.Epoch, click.Page.Epoch, click.Text)
	}
	back := must(t, g.DoAndSee(ctx, Back{}), spec.OutcomeDone, "")
	if !strings.Contains(back.Text, `Page "Page A"`) {
		t.Fatalf("back did not return the page it arrived at:\n%s", back.Text)
	}
	// An action that leaves the page where it was returns no snapshot.
	scroll := must(t, g.DoAndSee(ctx, Scroll{Direction: "down"}), spec.OutcomeDone, "")
	if scroll.Text != "" {
		t.Errorf("a scroll returned a snapshot:\n%s", scroll.Text)
	}
}
