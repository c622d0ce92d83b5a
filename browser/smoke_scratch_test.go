package browser

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestScratchSmoke(t *testing.T) {
	var mu sync.Mutex
	seen := map[string][]string{}
	mk := func() (string, func()) {
		l, _ := net.Listen("tcp", "127.0.0.1:0")
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			seen[r.Host+r.URL.Path] = append(seen[r.Host+r.URL.Path], r.Header.Get("Poppy-Extensions"))
			mu.Unlock()
			w.Header().Set("Content-Type", "text/html")
			switch {
			case r.Host == "other.test" && r.URL.Path == "/":
				fmt.Fprint(w, `<title>other</title><iframe src="http://company.test/inner"></iframe>`)
			case r.URL.Path == "/":
				fmt.Fprint(w, `<title>company</title><iframe src="http://other.test/inner"></iframe><script>fetch("/api")</script>`)
			case r.URL.Path == "/redir":
				http.Redirect(w, r, "http://other.test/landing", 302)
			default:
				fmt.Fprint(w, `<p>inner `+r.Host+`</p><script>document.title = String(window.__mark)</script>`)
			}
		})}
		go srv.Serve(l)
		return l.Addr().String(), func() { srv.Close() }
	}
	a, ca := mk()
	defer ca()
	o, co := mk()
	defer co()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	start := time.Now()
	b, err := Launch(ctx, &Options{
		Args:           []string{fmt.Sprintf("--host-resolver-rules=MAP company.test %s, MAP other.test %s", a, o)},
		CompanyHost:    func(h string) bool { return h == "company.test" },
		CompanyHeaders: map[string]string{"Poppy-Extensions": `"browser-control";v="1"`},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.SetScript(ctx, "mark", Script{Source: `if (location.hostname === "company.test") window.__mark = "yes";`}); err != nil {
		t.Fatal(err)
	}
	p, err := b.NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Log("ready in", time.Since(start))
	res, err := p.Navigate(ctx, "http://company.test/")
	t.Log(res, err)
	time.Sleep(time.Second)
	for _, f := range p.Frames() {
		var title string
		err := f.Call(ctx, UtilityWorld, "function(){return document.title + ' ' + location.href}", &title)
		var mark string
		err2 := f.Call(ctx, "", "function(){return String(window.__mark)}", &mark)
		t.Logf("frame %s remote=%v url=%s title=%q err=%v mark=%q %v", f.ID, f.Remote, f.URL, title, err, mark, err2)
	}
	res, err = p.Navigate(ctx, "http://other.test/")
	t.Log(res, err)
	time.Sleep(time.Second)
	for _, f := range p.Frames() {
		var mark string
		err2 := f.Call(ctx, "", "function(){return String(window.__mark)}", &mark)
		t.Logf("frame %s remote=%v url=%s mark=%q %v", f.ID, f.Remote, f.URL, mark, err2)
	}
	res, err = p.Navigate(ctx, "http://company.test/redir")
	t.Log(res, err)
	mu.Lock()
	for k, v := range seen {
		t.Logf("%s: %q", k, strings.Join(v, "|"))
	}
	mu.Unlock()
}
