package injector_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/browser/browsertest"
	"github.com/poppy-browser/poppy-browser/spec"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// addFrames adds iframes to the page's top document, as the page itself would.
func addFrames(t *testing.T, ctx context.Context, p *browser.Page, html string) {
	t.Helper()
	err := p.MainFrame().Call(ctx, "", `function(html){ document.body.insertAdjacentHTML("beforeend", html) }`, nil, html)
	if err != nil {
		t.Fatal(err)
	}
}

// waitFrames polls the page's frames, under ctx, for n whose URL ends with
// suffix and whose documents have loaded.
func waitFrames(t *testing.T, ctx context.Context, p *browser.Page, suffix string, n int) []browser.Frame {
	t.Helper()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		var found []browser.Frame
		for _, f := range p.Frames() {
			var ready bool
			if strings.HasSuffix(f.URL, suffix) && f.Call(ctx, "", `function(){ return document.readyState === "complete" }`, &ready) == nil && ready {
				found = append(found, f)
			}
		}
		if len(found) >= n {
			return found
		}
		select {
		case <-ctx.Done():
			t.Fatalf("waiting for %d loaded frames at %s: %v", n, suffix, ctx.Err())
		case <-tick.C:
		}
	}
}

func waitFrame(t *testing.T, ctx context.Context, p *browser.Page, suffix string) browser.Frame {
	t.Helper()
	return waitFrames(t, ctx, p, suffix, 1)[0]
}

// hostilePoppy is what a third-party page can do with navigator.poppy:
// define its own, recording how it is called, or make it throw.
const hostilePoppy = `function(kind){
	window.records = [];
	const poppy = {
		get controller() {
			// The page's own reads (report.js) pass no arguments.
			if (arguments.length > 0) window.records.push(JSON.stringify(Array.from(arguments)));
			if (kind === "throw") throw new Error("no");
			return arguments.length === 2 ? arguments[1] : "agent"; // as if it were ours
		},
	};
	Object.defineProperty(navigator, "poppy", { value: Object.freeze(poppy), configurable: false, writable: false });
	if (kind === "throw") Object.freeze(navigator);
}`

// TestThirdPartyFramesAreNeverCalled: a third-party frame that defines its
// own navigator.poppy learns nothing of a change of control (section 6:
// other websites cannot tell), and one whose navigator.poppy throws and is
// frozen does not stop the User from taking control.
func TestThirdPartyFramesAreNeverCalled(t *testing.T) {
	for _, kind := range []string{"record", "throw"} {
		t.Run(kind, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			// The throwing navigator.poppy throws in the partner page's own
			// scripts too: that is the hostile frame's doing, not a failure.
			_, p, in := setupWith(t, ctx, browsertest.PageOptions{AllowExceptions: kind == "throw"})
			if _, err := p.Navigate(ctx, testsite.BookingURL()); err != nil {
				t.Fatal(err)
			}
			addFrames(t, ctx, p, `<iframe src="https://partner.test/landing?hostile"></iframe>`)
			hostile := waitFrame(t, ctx, p, "?hostile")
			if err := hostile.Call(ctx, "", hostilePoppy, nil, kind); err != nil {
				t.Fatal(err)
			}
			for _, c := range []spec.Controller{spec.ControllerUser, spec.ControllerAgent, spec.ControllerUser} {
				if err := in.Set(ctx, c); err != nil {
					t.Fatalf("Set(%s) with a third-party navigator.poppy: %v", c, err)
				}
				var top string
				if err := p.MainFrame().Call(ctx, "", `function(){ return navigator.poppy.controller }`, &top); err != nil {
					t.Fatal(err)
				}
				if top != string(c) {
					t.Errorf("after Set(%s) the Company page reads %q", c, top)
				}
			}
			var records []string
			if err := hostile.Call(ctx, "", `function(){ return window.records }`, &records); err != nil {
				t.Fatal(err)
			}
			if len(records) != 0 {
				t.Errorf("the third-party frame's navigator.poppy was called by the runtime: %q", records)
			}
		})
	}
}

// TestSandboxedFrameCannotForge: a sandboxed srcdoc frame of a Company page
// (an opaque origin) is not the Company's: it gets no navigator.poppy and
// nothing it could obtain lets the Company page's value be changed. A plain
// srcdoc frame of the Company page is the page's own and reads the value.
func TestSandboxedFrameCannotForge(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	_, p, in := setup(t, ctx)
	if _, err := p.Navigate(ctx, testsite.BookingURL()); err != nil {
		t.Fatal(err)
	}
	const sandboxed = `<script>
		const records = [];
		Object.defineProperty(navigator, "poppy", { value: Object.freeze({
			get controller() { if (arguments.length > 0) records.push(Array.from(arguments)); return arguments.length === 2 ? arguments[1] : "agent"; },
		}) });
		addEventListener("message", () => parent.postMessage({ records: records }, "*"));
	</script>`
	err := p.MainFrame().Call(ctx, "", `function(html){
		const f = document.createElement("iframe");
		f.id = "sandboxed";
		f.sandbox = "allow-scripts";
		f.srcdoc = html;
		document.body.append(f);
		const own = document.createElement("iframe");
		own.id = "own";
		own.srcdoc = "<p>own</p>";
		document.body.append(own);
	}`, nil, sandboxed)
	if err != nil {
		t.Fatal(err)
	}
	waitFrames(t, ctx, p, "about:srcdoc", 2)
	for _, c := range []spec.Controller{spec.ControllerUser, spec.ControllerAgent} {
		if err := in.Set(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	// The Company page asks the sandboxed frame for everything it saw and
	// tries each recorded call on its own getter, with "user".
	var got struct {
		Records int
		Reads   string
		Own     string
	}
	err = p.MainFrame().Call(ctx, "", `async function(){
		const records = await new Promise((resolve, reject) => {
			addEventListener("message", e => { if (e.data && e.data.records) resolve(e.data.records) });
			document.getElementById("sandboxed").contentWindow.postMessage("report", "*");
			setTimeout(() => reject(new Error("the sandboxed frame did not answer in 20 s")), 20000);
		});
		const get = Object.getOwnPropertyDescriptor(navigator.poppy, "controller").get;
		for (const args of records) {
			try { get(...args.map(a => a === "agent" ? "user" : a)) } catch (e) {}
			try { get(args[0], "user") } catch (e) {}
		}
		const own = document.getElementById("own").contentWindow.navigator.poppy;
		return { Records: records.length, Reads: navigator.poppy.controller, Own: own ? own.controller : "absent" };
	}`, &got)
	if err != nil {
		t.Fatal(err)
	}
	if got.Records != 0 {
		t.Errorf("the runtime called the sandboxed frame's navigator.poppy %d times", got.Records)
	}
	if got.Reads != "agent" {
		t.Errorf("the agent holds control but the Company page reads %q", got.Reads)
	}
	if got.Own != "agent" {
		t.Errorf("the Company page's own srcdoc frame reads %q, want agent", got.Own)
	}
}
