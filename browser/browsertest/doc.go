// Package browsertest shares one real Chromium among the tests of a test
// binary, the way net/http/httptest serves them an HTTP server.
//
// It owns the test side of package browser: starting one Chromium per test
// binary (on first use, so tests without a browser do not pay for it),
// opening a page in a fresh browser context per test, failing the test on
// an uncaught page exception, saving a screenshot and the page's console to
// t.ArtifactDir() when a test fails, and checking on Close that the
// browser's temporary profile is gone. It must not be imported by
// non-test code, and it mocks nothing: every page is a real Chromium tab.
//
// # Use
//
// A package's TestMain starts its servers, then makes the shared browser
// and hands it to [Run], which runs the tests and closes the browser:
//
//	var chromium *browsertest.Browser
//
//	func TestMain(m *testing.M) {
//		srv := ... // the fixtures, on 127.0.0.1:0
//		chromium = browsertest.New(&browsertest.Options{
//			Args:  []string{"--host-resolver-rules=MAP *.test " + srv.Addr},
//			Setup: func(ctx context.Context, b *browser.Browser) error { return b.SetScript(ctx, "marks", marks.Script()) },
//		})
//		os.Exit(browsertest.Run(m, chromium))
//	}
//
//	func TestSomething(t *testing.T) {
//		p := chromium.NewPage(t) // fresh browser context; closed, checked and kept as artifacts at cleanup
//		...
//	}
//
// Without Chromium a test that asks for the browser fails naming the
// install command, and skips under -short.
//
// # A Chromium of its own
//
// A test that must start Chromium itself (a browser the runtime attaches to,
// as to a pool's) uses [StartChromium]: the browser runs in its own process
// group, and at cleanup the whole group is killed and waited for before its
// profile is removed (Chromium's helpers outlive its main process and keep
// writing the profile). [Chromium.Kill] does the same mid-test, as a pool
// replacing a browser would.
//
// # Test seams
//
// What a test needs of a page and package browser keeps out of its API
// lives here: [SetViewport] (a window of a chosen size), [WindowClick] (a
// click from the browser's own window, which a window-input block drops),
// [WatchLog] (the page's console and uncaught exceptions) and [ProfileDir].
// Package browser hands them over through browser/internal/seam, so a
// caller outside the tests cannot change a page around the gate with them.
//
// # Bounds
//
// Every wait is bounded and says what it waited for: the start of Chromium
// (with its Setup) gets [StartTimeout], opening and closing a page
// [PageTimeout]. A test bounds its own steps with its own context.
//
// # Concurrency
//
// A [Browser] is safe for concurrent use by parallel tests; each page
// belongs to one test.
package browsertest
