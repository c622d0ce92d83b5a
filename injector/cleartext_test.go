package injector_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/poppy-browser/poppy-browser/spec"
)

// TestNotOnCleartextPages: navigator.poppy goes only where the
// Poppy-Extensions header goes. A Company page over cleartext http (a
// network may read and rewrite it, and run its own script in it) has no
// navigator.poppy, before or after a switch of control; a Company on
// localhost in development, where no network lies between, has it.
func TestNotOnCleartextPages(t *testing.T) {
	for _, tc := range []struct {
		name, domain, host string
		want               string
	}{
		{"cleartext Company host", "shop.test", "shop.test", "undefined"},
		{"localhost in development", "localhost", "localhost", "user"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			srv := httptest.NewServer(pagesHandler(map[string]string{tc.host + "/": `<p>shop</p>`}))
			t.Cleanup(srv.Close)
			port := srv.Listener.Addr().String()[strings.LastIndex(srv.Listener.Addr().String(), ":")+1:]
			args := []string{"--host-resolver-rules=MAP shop.test " + srv.Listener.Addr().String()}
			b, in := launch(t, ctx, tc.domain, args)
			p, err := b.NewPage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			url := "http://" + tc.host + ":" + port + "/"
			if tc.host == "shop.test" {
				url = "http://shop.test/"
			}
			if _, err := p.Navigate(ctx, url); err != nil {
				t.Fatal(err)
			}
			if err := in.Set(ctx, spec.ControllerUser); err != nil {
				t.Fatal(err)
			}
			var got string
			if err := p.MainFrame().Call(ctx, "", `function(){ return navigator.poppy === undefined ? "undefined" : navigator.poppy.controller }`, &got); err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("%s reads navigator.poppy as %q, want %q", url, got, tc.want)
			}
		})
	}
}
