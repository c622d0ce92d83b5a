package spec_test

import (
	"fmt"

	"github.com/poppy-browser/poppy-browser/spec"
)

func ExampleFormatExtensions() {
	v, err := spec.FormatExtensions([]spec.Extension{spec.BrowserControlV1()})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: %s\n", spec.HeaderExtensions, v)
	// Output: Poppy-Extensions: "browser-control";v="1"
}

func ExampleParseExtensions() {
	exts, err := spec.ParseExtensions([]string{`"operations";v="1"`, `"browser-control";v="1"`})
	fmt.Println(exts, err, spec.Declares(exts, spec.BrowserControlV1()))

	_, err = spec.ParseExtensions([]string{`browser-control;v="1"`})
	fmt.Println(err)
	// Output:
	// [operations v1 browser-control v1] <nil> true
	// poppy-extensions: member 1 is a token, not a string
}

func ExampleMatchesURL() {
	for _, u := range []string{
		"https://airline.test/bookings",
		"https://pay.airline.test:8443/",
		"https://evilairline.test/",
		"https://airline.test.evil.test/",
		"https://airline.test@evil.test/",
		"https://127.0.0.1/",
	} {
		fmt.Println(spec.MatchesURL("airline.test", u), u)
	}
	// Output:
	// true https://airline.test/bookings
	// true https://pay.airline.test:8443/
	// false https://evilairline.test/
	// false https://airline.test.evil.test/
	// false https://airline.test@evil.test/
	// false https://127.0.0.1/
}

func ExampleParseDocument() {
	data := []byte(`{
	  "protocol_version": "0.4",
	  "organization": {"name": "Demo Airline", "domain": "airline.test"},
	  "web": {"browser_session_endpoint": "https://airline.test/poppy/browser-session"},
	  "extensions": {"browser-control": {"version": "1"}}
	}`)
	doc, warns, err := spec.ParseDocument(data, "www.airline.test")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(doc.Organization.Domain, doc.RequireBrowserControl())
	for _, w := range warns {
		fmt.Println(w.Code)
	}
	// Output:
	// airline.test <nil>
	// extension-object-shape
}
