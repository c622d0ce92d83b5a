package spec

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// doc04 is a good poppy.json in the 0.4 shape.
const doc04 = `{
  "protocol_version": "0.4",
  "organization": {"name": "Demo Airline", "domain": "airline.test"},
  "auth": {"issuer": "https://airline.test"},
  "apis": [],
  "agent": {"mcp": "https://airline.test/mcp"},
  "web": {"browser_session_endpoint": "https://airline.test/poppy/browser-session"},
  "extensions": {"browser-control": [{"version": "1"}], "operations": [{"version": "1"}, {"version": "2"}]}
}`

// docWith returns doc04 with top-level fields replaced (nil deletes).
func docWith(t *testing.T, fields map[string]any) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(doc04), &m); err != nil {
		t.Fatal(err)
	}
	for k, v := range fields {
		if v == nil {
			delete(m, k)
			continue
		}
		m[k] = v
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseDocument(t *testing.T) {
	bcList := map[string]any{"browser-control": []any{map[string]any{"version": "1"}}}
	tests := []struct {
		name       string
		data       []byte
		host       string
		wantExt    map[string][]ExtensionEntry
		wantWarns  []string // codes
		wantErr    string   // exact
		wantDomain string   // "" means airline.test
	}{
		{name: "0.4 shape", data: []byte(doc04), host: "airline.test",
			wantExt: map[string][]ExtensionEntry{"browser-control": {{"1"}}, "operations": {{"1"}, {"2"}}}},
		{name: "0.1 shape warns", data: docWith(t, map[string]any{"extensions": map[string]any{"browser-control": map[string]any{"version": "1"}}}),
			host: "airline.test", wantExt: map[string][]ExtensionEntry{"browser-control": {{"1"}}}, wantWarns: []string{WarnExtensionObject}},
		{name: "malformed entries dropped", data: docWith(t, map[string]any{"extensions": map[string]any{
			"browser-control": []any{map[string]any{"version": 1}, map[string]any{"version": "1"}, "x"},
			"other":           "yes",
		}}), host: "airline.test", wantExt: map[string][]ExtensionEntry{"browser-control": {{"1"}}},
			wantWarns: []string{WarnExtensionMalformed, WarnExtensionMalformed, WarnExtensionMalformed}},
		{name: "duplicate versions once", data: docWith(t, map[string]any{"extensions": map[string]any{"browser-control": []any{map[string]any{"version": "1"}, map[string]any{"version": "1"}}}}),
			host: "airline.test", wantExt: map[string][]ExtensionEntry{"browser-control": {{"1"}}}},
		{name: "unknown fields ignored", data: docWith(t, map[string]any{"future": map[string]any{"x": 1}, "extensions": map[string]any{"browser-control": []any{map[string]any{"version": "1", "more": true}}}}),
			host: "airline.test", wantExt: map[string][]ExtensionEntry{"browser-control": {{"1"}}}},
		{name: "no extensions", data: docWith(t, map[string]any{"extensions": nil}), host: "airline.test", wantExt: map[string][]ExtensionEntry{}},
		{name: "www asked", data: []byte(doc04), host: "www.airline.test", wantExt: map[string][]ExtensionEntry{"browser-control": {{"1"}}, "operations": {{"1"}, {"2"}}}},
		{name: "asked with port, case, dot", data: []byte(doc04), host: "AirLine.Test.:8443", wantExt: map[string][]ExtensionEntry{"browser-control": {{"1"}}, "operations": {{"1"}, {"2"}}}},
		{name: "domain case and dot", data: docWith(t, map[string]any{"organization": map[string]any{"domain": "AIRLINE.test."}, "extensions": bcList}),
			host: "airline.test", wantExt: map[string][]ExtensionEntry{"browser-control": {{"1"}}}},
		{name: "another 0.x is refused", data: docWith(t, map[string]any{"protocol_version": "0.99", "extensions": bcList}), host: "airline.test",
			wantErr: `poppy.json: protocol_version "0.99" is not supported (supported: 0.4)`},
		{name: "draft 0.1 is refused", data: docWith(t, map[string]any{"protocol_version": "0.1", "extensions": bcList}), host: "airline.test",
			wantErr: `poppy.json: protocol_version "0.1" is not supported (supported: 0.4)`},
		{name: "public suffix", data: docWith(t, map[string]any{"organization": map[string]any{"domain": "test"}, "extensions": bcList}), host: "www.test",
			wantErr: `poppy.json: organization.domain "test": a public suffix cannot be a Company: "test"`},
		{name: "idn domain, unicode", data: docWith(t, map[string]any{"organization": map[string]any{"domain": "bücher.test"}, "web": map[string]any{"browser_session_endpoint": "https://bücher.test/join"}, "extensions": bcList}), host: "xn--bcher-kva.test", wantDomain: "xn--bcher-kva.test",
			wantExt: map[string][]ExtensionEntry{"browser-control": {{"1"}}}},
		{name: "idn domain, punycode", data: docWith(t, map[string]any{"organization": map[string]any{"domain": "xn--bcher-kva.test"}, "web": map[string]any{"browser_session_endpoint": "https://pay.xn--bcher-kva.test/join"}, "extensions": bcList}), host: "bücher.test", wantDomain: "xn--bcher-kva.test",
			wantExt: map[string][]ExtensionEntry{"browser-control": {{"1"}}}},
		{name: "invalid punycode domain", data: docWith(t, map[string]any{"organization": map[string]any{"domain": "xn--zz.test"}, "extensions": bcList}), host: "xn--zz.test",
			wantErr: `poppy.json: organization.domain "xn--zz.test": invalid domain: not a valid internationalized name: invalid label "zz"`},
		{name: "no endpoint is fine here", data: docWith(t, map[string]any{"web": nil, "extensions": bcList}), host: "airline.test",
			wantExt: map[string][]ExtensionEntry{"browser-control": {{"1"}}}},

		{name: "wrong domain", data: []byte(doc04), host: "evil.test",
			wantErr: `poppy.json: organization.domain "airline.test" does not match the host asked for, "evil.test"`},
		{name: "subdomain asked", data: []byte(doc04), host: "pay.airline.test",
			wantErr: `poppy.json: organization.domain "airline.test" does not match the host asked for, "pay.airline.test"`},
		{name: "www only stripped from asked host", data: docWith(t, map[string]any{"organization": map[string]any{"domain": "www.airline.test"}}), host: "airline.test",
			wantErr: `poppy.json: organization.domain "www.airline.test" does not match the host asked for, "airline.test"`},
		{name: "look-alike", data: []byte(doc04), host: "evilairline.test",
			wantErr: `poppy.json: organization.domain "airline.test" does not match the host asked for, "evilairline.test"`},
		{name: "ip domain", data: docWith(t, map[string]any{"organization": map[string]any{"domain": "127.0.0.1"}}), host: "127.0.0.1",
			wantErr: `poppy.json: organization.domain "127.0.0.1": invalid domain: an IP literal`},
		{name: "missing domain", data: docWith(t, map[string]any{"organization": map[string]any{"name": "x"}}), host: "airline.test",
			wantErr: `poppy.json: organization.domain is missing`},
		{name: "http endpoint", data: docWith(t, map[string]any{"web": map[string]any{"browser_session_endpoint": "http://airline.test/join"}}), host: "airline.test",
			wantErr: `poppy.json: web.browser_session_endpoint must be https, got "http://airline.test/join"`},
		{name: "relative endpoint", data: docWith(t, map[string]any{"web": map[string]any{"browser_session_endpoint": "/join"}}), host: "airline.test",
			wantErr: `poppy.json: web.browser_session_endpoint must be https, got "/join"`},
		{name: "endpoint off site", data: docWith(t, map[string]any{"web": map[string]any{"browser_session_endpoint": "https://airline.test.evil.test/join"}}), host: "airline.test",
			wantErr: `poppy.json: web.browser_session_endpoint must be on airline.test or a subdomain, got "https://airline.test.evil.test/join"`},
		{name: "endpoint userinfo", data: docWith(t, map[string]any{"web": map[string]any{"browser_session_endpoint": "https://evil.test@airline.test/join"}}), host: "airline.test",
			wantErr: `poppy.json: web.browser_session_endpoint must not hold userinfo`},
		{name: "bad major", data: docWith(t, map[string]any{"protocol_version": "1.0"}), host: "airline.test",
			wantErr: `poppy.json: protocol_version "1.0" has unsupported major version 1 (supported: 0)`},
		{name: "bad version shape", data: docWith(t, map[string]any{"protocol_version": "0.4.1"}), host: "airline.test",
			wantErr: `poppy.json: protocol_version must be "major.minor", got "0.4.1"`},
		{name: "version number", data: docWith(t, map[string]any{"protocol_version": 0.4}), host: "airline.test",
			wantErr: `poppy.json: protocol_version has the wrong type, a json number`},
		{name: "missing version", data: docWith(t, map[string]any{"protocol_version": nil}), host: "airline.test",
			wantErr: `poppy.json: protocol_version is missing`},
		{name: "malformed json", data: []byte("{\n  \"protocol_version\": \"0.4\",\n"), host: "airline.test",
			wantErr: `poppy.json: invalid json: unexpected EOF after offset 31`},
		{name: "not an object", data: []byte(`[]`), host: "airline.test",
			wantErr: `poppy.json: the document is a json array, not an object`},
		{name: "trailing data", data: []byte(doc04 + "{}"), host: "airline.test",
			wantErr: `poppy.json: invalid json: invalid character '{' after top-level value after offset 403`},
		{name: "duplicate member", data: []byte(`{"protocol_version":"0.4","organization":{"domain":"airline.test","domain":"evil.test"}}`), host: "evil.test",
			wantErr: `poppy.json: invalid json: duplicate object member name "domain" within "/organization"`},
		{name: "member names are case-sensitive", data: []byte(`{"protocol_version":"0.4","Organization":{"domain":"airline.test"}}`), host: "airline.test",
			wantErr: `poppy.json: organization.domain is missing`},
		{name: "wrong type nested", data: docWith(t, map[string]any{"web": map[string]any{"browser_session_endpoint": 7}}), host: "airline.test",
			wantErr: `poppy.json: web.browser_session_endpoint has the wrong type, a json number`},
		{name: "extensions not an object", data: docWith(t, map[string]any{"extensions": []any{}}), host: "airline.test",
			wantErr: `poppy.json: extensions has the wrong type, a json array`},
		{name: "asked host bad port", data: []byte(doc04), host: "airline.test:a",
			wantErr: `poppy.json: asked host "airline.test:a": invalid domain: has a port or colon`},
		{name: "bad asked host", data: []byte(doc04), host: "",
			wantErr: `poppy.json: asked host "": invalid domain: empty`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc, warns, err := ParseDocument(tc.data, tc.host)
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
				if !errors.Is(err, ErrBadDocument) {
					t.Errorf("error %v does not match ErrBadDocument", err)
				}
				if strings.Contains(gotErr, "\n") {
					t.Errorf("error is not one line: %q", gotErr)
				}
			}
			if diff := cmp.Diff(tc.wantErr, gotErr); diff != "" {
				t.Fatalf("ParseDocument error (-want +got):\n%s", diff)
			}
			var codes []string
			for _, w := range warns {
				codes = append(codes, w.Code)
				if w.Message == "" {
					t.Errorf("warning %s has no message", w.Code)
				}
			}
			if diff := cmp.Diff(tc.wantWarns, codes); diff != "" {
				t.Errorf("ParseDocument warnings (-want +got):\n%s", diff)
			}
			if err != nil {
				if doc != nil {
					t.Errorf("ParseDocument returned a document with an error")
				}
				return
			}
			if diff := cmp.Diff(tc.wantExt, doc.Extensions); diff != "" {
				t.Errorf("ParseDocument extensions (-want +got):\n%s", diff)
			}
			want := tc.wantDomain
			if want == "" {
				want = "airline.test"
			}
			if doc.Organization.Domain != want {
				t.Errorf("Organization.Domain = %q, want %s", doc.Organization.Domain, want)
			}
		})
	}
}

func TestParseDocumentFields(t *testing.T) {
	doc, warns, err := ParseDocument([]byte(doc04), "airline.test")
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 0 {
		t.Errorf("warnings = %v, want none", warns)
	}
	want := &Document{
		ProtocolVersion: "0.4",
		Organization:    Organization{Name: "Demo Airline", Domain: "airline.test"},
		Web:             Web{BrowserSessionEndpoint: "https://airline.test/poppy/browser-session"},
		Extensions:      map[string][]ExtensionEntry{"browser-control": {{"1"}}, "operations": {{"1"}, {"2"}}},
		Auth:            json.RawMessage(`{"issuer": "https://airline.test"}`),
		APIs:            json.RawMessage(`[]`),
		Agent:           json.RawMessage(`{"mcp": "https://airline.test/mcp"}`),
	}
	if diff := cmp.Diff(want, doc, cmpopts.IgnoreUnexported(Document{})); diff != "" {
		t.Errorf("ParseDocument (-want +got):\n%s", diff)
	}
}

func TestDocumentSupportsAndRequire(t *testing.T) {
	const ep = "https://pay.airline.test/join"
	tests := []struct {
		name        string
		doc         *Document
		wantSupport bool
		wantErr     string
	}{
		{"v1 and endpoint", &Document{Organization: Organization{Domain: "airline.test"}, Web: Web{ep},
			Extensions: map[string][]ExtensionEntry{ExtensionName: {{"2"}, {"1"}}}}, true, ""},
		{"other version only", &Document{Organization: Organization{Domain: "airline.test"}, Web: Web{ep},
			Extensions: map[string][]ExtensionEntry{ExtensionName: {{"2"}}}}, false,
			`poppy.json does not support browser-control v1: extensions lists browser-control versions "2", not "1"`},
		{"not listed", &Document{Organization: Organization{Domain: "airline.test"}, Web: Web{ep}}, false,
			"poppy.json does not support browser-control v1: extensions does not list browser-control"},
		{"no endpoint", &Document{Organization: Organization{Domain: "airline.test"},
			Extensions: map[string][]ExtensionEntry{ExtensionName: {{"1"}}}}, true,
			"poppy.json does not support browser-control v1: web.browser_session_endpoint is missing"},
		{"http endpoint", &Document{Organization: Organization{Domain: "airline.test"}, Web: Web{"http://airline.test/join"},
			Extensions: map[string][]ExtensionEntry{ExtensionName: {{"1"}}}}, true,
			`poppy.json does not support browser-control v1: web.browser_session_endpoint must be https, got "http://airline.test/join"`},
		{"nil", nil, false, "poppy.json does not support browser-control v1: no document"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.doc.Supports(BrowserControlV1()); got != tc.wantSupport {
				t.Errorf("Supports = %v, want %v", got, tc.wantSupport)
			}
			err := tc.doc.RequireBrowserControl()
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
				if !errors.Is(err, ErrNoBrowserControl) {
					t.Errorf("error %v does not match ErrNoBrowserControl", err)
				}
			}
			if diff := cmp.Diff(tc.wantErr, gotErr); diff != "" {
				t.Errorf("RequireBrowserControl (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRequireBrowserControlNamesTheProblem: a malformed browser-control
// entry is named in the error, not reported as a missing extension.
func TestRequireBrowserControlNamesTheProblem(t *testing.T) {
	for data, want := range map[string]string{
		`{"browser-control":[{"version":1}]}`:  "extensions.browser-control entry 1: version must be a string, not a json number, so it is ignored",
		`{"browser-control":[{"v":"1"}]}`:      "extensions.browser-control entry 1: has no version, so it is ignored",
		`{"browser-control":["1"]}`:            "extensions.browser-control entry 1: is a json string, not an object, so it is ignored",
		`{"browser-control":"1"}`:              "extensions.browser-control is neither a list of version objects nor an object, so it is ignored",
		`{"browser-control":{"version":true}}`: "extensions.browser-control entry 1: version must be a string, not a json boolean, so it is ignored",
		`{"browser-control":[{"version":""}]}`: "extensions.browser-control entry 1: version must be a non-empty string, so it is ignored",
		`{"other":[{"version":1}]}`:            "extensions does not list browser-control",
	} {
		doc, warns, err := ParseDocument([]byte(`{"protocol_version":"0.4","organization":{"domain":"airline.test"},"web":{"browser_session_endpoint":"https://airline.test/j"},"extensions":`+data+`}`), "airline.test")
		if err != nil {
			t.Fatalf("%s: %v", data, err)
		}
		err = doc.RequireBrowserControl()
		if err == nil || err.Error() != "poppy.json does not support browser-control v1: "+want {
			t.Errorf("%s: error %v, want ...: %s", data, err, want)
		}
		if want != "extensions does not list browser-control" && (len(warns) == 0 || warns[len(warns)-1].Message != want) {
			t.Errorf("%s: warnings %v", data, warns)
		}
	}
}
