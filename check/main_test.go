package check_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/browser/browsertest"
	"github.com/poppy-browser/poppy-browser/check"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// env is the demo airline and one checker shared by the package's tests
// (nil under -short without Chromium). Tests check one page at a time.
var env *testEnv

type testEnv struct {
	site     *testsite.Site
	chromium string
	// browser is a plain Chromium (no runtime) that reaches the testsite:
	// the tests load pages in it as a developer's browser would.
	browser *browsertest.Browser
}

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(run(m))
}

func run(m *testing.M) int {
	path, err := browser.FindChromium()
	if err != nil {
		if testing.Short() {
			return m.Run()
		}
		fmt.Fprintln(os.Stderr, "check tests need Chromium:", err)
		return 1
	}
	site, err := testsite.New(nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsite:", err)
		return 1
	}
	if err := site.Start("127.0.0.1:0"); err != nil {
		fmt.Fprintln(os.Stderr, "testsite:", err)
		return 1
	}
	defer site.Close()
	env = &testEnv{site: site, chromium: path, browser: browsertest.New(&browsertest.Options{Args: site.BrowserArgs()})}
	defer func() {
		if err := env.browser.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "closing the test browser:", err)
		}
	}()
	return m.Run()
}

// newChecker starts a checker against the testsite; it is closed when the
// test ends.
func newChecker(t *testing.T, opts check.Options) *check.Checker {
	t.Helper()
	if env == nil {
		t.Skip("no Chromium (-short)")
	}
	opts.Chromium, opts.BrowserArgs = env.chromium, env.site.BrowserArgs()
	opts.HTTPClient = env.site.Client()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	c, err := check.New(ctx, &opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	})
	return c
}
