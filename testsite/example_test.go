package testsite_test

import (
	"encoding/json"
	"fmt"
	"log"

	"github.com/poppy-browser/poppy-browser/testsite"
)

func Example() {
	s, err := testsite.New(nil)
	if err != nil {
		log.Fatal(err)
	}
	if err := s.Start("127.0.0.1:0"); err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	// s.BrowserArgs() are the flags that point Chromium at s.
	resp, err := s.Client().Get("https://airline.test/.well-known/poppy.json")
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	var doc struct {
		Organization struct{ Domain string }
		Web          struct {
			Endpoint string `json:"browser_session_endpoint"`
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		log.Fatal(err)
	}
	fmt.Println(doc.Organization.Domain, doc.Web.Endpoint)
	fmt.Println(len(s.Requests("airline.test")), "request to airline.test")
	// Output:
	// airline.test https://airline.test/poppy/browser-session
	// 1 request to airline.test
}
