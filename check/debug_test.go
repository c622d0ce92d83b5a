package check_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/check"
	"github.com/poppy-browser/poppy-browser/testsite"
)

func TestDebug(t *testing.T) {
	c := newChecker(t, check.Options{Fill: true})
	ctx, cancel := context.WithTimeout(t.Context(), 240*time.Second)
	defer cancel()
	urls := []string{testsite.CheckInURL()}
	for _, u := range testsite.CheckFixtureURLs() {
		urls = append(urls, u)
	}
	r, err := c.Run(ctx, urls)
	if err != nil {
		t.Fatal(err)
	}
	r.WriteText(os.Stdout, check.Error)
	f, _ := os.Create("/tmp/check-debug.html")
	r.WriteHTML(f)
	f.Close()
	for _, p := range r.Pages {
		t.Log(p.Snapshot)
	}
}
