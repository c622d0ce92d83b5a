package session_test

import (
	"context"
	"fmt"
	"log"

	"github.com/poppy-browser/poppy-browser/session"
	"github.com/poppy-browser/poppy-browser/testsite"
)

func ExampleDiscover() {
	site, err := testsite.New(nil)
	if err != nil {
		log.Fatal(err)
	}
	if err := site.Start("127.0.0.1:0"); err != nil {
		log.Fatal(err)
	}
	defer site.Close()

	company, _, err := session.Discover(context.Background(), site.Client(), "https://airline.test/bookings/bkg_4Rt9")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(company.Name, company.Domain, company.Endpoint, company.Extensions)
	fmt.Println(company.IsCompanyHost("pay.airline.test"), company.IsCompanyHost("partner.test"))
	// Output:
	// Demo Airline airline.test https://airline.test/poppy/browser-session [browser-control v1]
	// true false
}

func ExampleSecret() {
	cred := session.NewSecret("eyJhbGciOiJFZERTQSJ9.e30.c2ln")
	fmt.Println(cred)
	fmt.Printf("%#v\n", cred)
	fmt.Println(len(cred.Reveal()))
	// Output:
	// [redacted]
	// [redacted]
	// 29
}
