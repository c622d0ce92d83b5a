package gate

import "testing"

func TestLinkTarget(t *testing.T) {
	const here = "https://airline.test/check-in?step=2"
	for _, c := range []struct{ href, want string }{
		{"https://airline.test/manage", "/manage"},
		{"https://airline.test/", "/"},
		{"https://airline.test", "/"},
		{"https://partner.test/hotels", "partner.test/hotels"},
		{"https://www.airline.test/help", "www.airline.test/help"},
		{"https://airline.test:8443/x", "airline.test:8443/x"},
		{"https://airline.test/booking?ref=ABC123&last=Smith", "/booking?ref=…&last=…"},
		{"https://partner.test/cb?token=s3cr3t", "partner.test/cb?token=…"},
		{"https://airline.test/s?flag&q=x", "/s?flag&q=…"},
		{"https://airline.test/s?a=1&b=2&c=3&d=4&e=5", "/s?a=…&b=…&c=…&d=…&…"},
		{"https://airline.test/p#baggage", "/p#baggage"},
		{"https://airline.test/cb#access_token=s3cr3t", "/cb#…"},
		{"https://airline.test/check-in?step=2#seat", "#seat"},
		{"https://AIRLINE.test/check-in?step=2#seat", "#seat"},
		{"https://airline.test/check-in?step=2#access_token=s3cr3t", "#…"},
		{"https://airline.test/check-in?step=3#seat", "/check-in?step=…#seat"},
		{"https://airline.test/check-in?step=2#", ""},
		{"https://airline.test/check-in?step=3#", "/check-in?step=…"},
		{"https://airline.test/check-in?step=2", "/check-in?step=…"},
		{"http://airline.test/check-in?step=2#seat", "/check-in?step=…#seat"},
		{"https://airline.test/docs/guides/2024/travel/with/children/and/pets/overview", "/docs/…/overview"},
		{"https://airline.test/" + "a123456789012345678901234567890123456789012345678901234567890", "/a123456789012345678901234567890…"},
		{"mailto:help@airline.test", ""},
		{"javascript:alert(1)", ""},
		{"data:text/html,hi", ""},
	} {
		if got := linkTarget(c.href, here); got != c.want {
			t.Errorf("linkTarget(%q) = %q, want %q", c.href, got, c.want)
		}
	}
}
