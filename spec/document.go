package spec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// SupportedMajor is the protocol_version major this package reads.
const SupportedMajor = 0

// SupportedVersion is the one protocol_version this package reads: the core
// version browser-control v1 is written against. Before 1.0 a minor version
// may change anything, so no other 0.x is taken on trust.
const SupportedVersion = "0.4"

// ErrBadDocument matches (with errors.Is) every error from [ParseDocument].
var ErrBadDocument = errors.New("invalid poppy.json")

// ErrNoBrowserControl matches (with errors.Is) the error from
// [Document.RequireBrowserControl].
var ErrNoBrowserControl = errors.New("poppy.json does not support browser-control v1")

// Warning codes from [ParseDocument].
const (
	// WarnExtensionObject: an extension is a single object (draft 0.1 shape)
	// instead of a list of version objects (0.4 shape).
	WarnExtensionObject = "extension-object-shape"
	// WarnExtensionMalformed: an extension entry is neither shape, or has a
	// version that is not a non-empty string; it is ignored.
	WarnExtensionMalformed = "extension-malformed"
)

// Document is a parsed and validated poppy.json. The zero value lists no
// extensions and supports nothing.
type Document struct {
	// ProtocolVersion is "major.minor"; the major is [SupportedMajor].
	ProtocolVersion string
	// Organization names the Company; Domain is normalized ([NormalizeDomain]).
	Organization Organization
	// Web holds the browser join endpoint; empty when the document has none.
	Web Web
	// Extensions maps an extension name to its entries, from either shape.
	Extensions map[string][]ExtensionEntry
	// ignored says, per extension name, why entries were dropped, so that
	// RequireBrowserControl names the real problem.
	ignored map[string][]string
	// Auth, APIs and Agent are kept as they came, or nil when absent.
	Auth, APIs, Agent json.RawMessage
}

// Organization is poppy.json's organization object.
type Organization struct {
	Name   string `json:"name"`
	Domain string `json:"domain"`
}

// Web is poppy.json's web object.
type Web struct {
	BrowserSessionEndpoint string `json:"browser_session_endpoint"`
}

// ExtensionEntry is one version of an extension listed in poppy.json.
type ExtensionEntry struct {
	Version string `json:"version"`
}

// Warning is something a document may do but should not, for conformance
// reports. Code is stable (Warn* constants); Message is one sentence.
type Warning struct {
	Code    string
	Message string
}

// rawDocument mirrors poppy.json on the wire. It is decoded with JSON v2
// semantics: member names match exactly (case-sensitive), a duplicate name
// or invalid UTF-8 is an error, unknown members are ignored.
type rawDocument struct {
	ProtocolVersion *string                   `json:"protocol_version"`
	Organization    *Organization             `json:"organization"`
	Auth            jsontext.Value            `json:"auth"`
	APIs            jsontext.Value            `json:"apis"`
	Agent           jsontext.Value            `json:"agent"`
	Web             *Web                      `json:"web"`
	Extensions      map[string]jsontext.Value `json:"extensions"`
}

var versionRE = regexp.MustCompile(`^(0|[1-9][0-9]{0,8})\.(0|[1-9][0-9]{0,8})$`)

// docErrorf builds a one-line error that matches [ErrBadDocument].
func docErrorf(format string, args ...any) error {
	return &docError{msg: "poppy.json: " + fmt.Sprintf(format, args...)}
}

type docError struct{ msg string }

func (e *docError) Error() string        { return e.msg }
func (e *docError) Is(target error) bool { return target == ErrBadDocument }

// ParseDocument parses poppy.json as served for askedHost (the host whose
// well-known URL was fetched, with or without a port) and validates it:
// protocol_version is [SupportedVersion] (a "major.minor" with another
// major, or another 0.x, is refused); organization.domain equals askedHost
// (a leading "www." of askedHost, case and a trailing dot ignored; Unicode
// and punycode forms equal) and is not a public suffix
// ([CheckCompanyDomain]); web.browser_session_endpoint, when present,
// is an absolute HTTPS URL without userinfo on that domain or a subdomain.
// Extensions come as a list of {"version"} objects (0.4) or a single object
// (0.1, reported as a [Warning]); malformed entries are dropped with a
// warning. Unknown fields are ignored. Errors are one line.
func ParseDocument(data []byte, askedHost string) (*Document, []Warning, error) {
	var raw rawDocument
	if err := jsonv2.Unmarshal(data, &raw); err != nil {
		return nil, nil, jsonError(err)
	}
	if raw.ProtocolVersion == nil {
		return nil, nil, docErrorf("protocol_version is missing")
	}
	pv := *raw.ProtocolVersion
	m := versionRE.FindStringSubmatch(pv)
	if m == nil {
		return nil, nil, docErrorf("protocol_version must be \"major.minor\", got %q", pv)
	}
	if major, _ := strconv.Atoi(m[1]); major != SupportedMajor {
		return nil, nil, docErrorf("protocol_version %q has unsupported major version %d (supported: %d)", pv, major, SupportedMajor)
	}
	if pv != SupportedVersion {
		return nil, nil, docErrorf("protocol_version %q is not supported (supported: %s)", pv, SupportedVersion)
	}
	if raw.Organization == nil || raw.Organization.Domain == "" {
		return nil, nil, docErrorf("organization.domain is missing")
	}
	domain, err := normalizeHost(raw.Organization.Domain)
	if err != nil {
		return nil, nil, docErrorf("organization.domain %q: %v", raw.Organization.Domain, err)
	}
	if err := checkAskedHost(domain, askedHost); err != nil {
		return nil, nil, err
	}
	if err := CheckCompanyDomain(domain); err != nil {
		return nil, nil, docErrorf("organization.domain %q: %v", domain, err)
	}
	doc := &Document{
		ProtocolVersion: pv,
		Organization:    Organization{Name: raw.Organization.Name, Domain: domain},
		Auth:            rawOrNil(raw.Auth),
		APIs:            rawOrNil(raw.APIs),
		Agent:           rawOrNil(raw.Agent),
		Extensions:      map[string][]ExtensionEntry{},
		ignored:         map[string][]string{},
	}
	if raw.Web != nil && raw.Web.BrowserSessionEndpoint != "" {
		if err := checkEndpoint(domain, raw.Web.BrowserSessionEndpoint); err != nil {
			return nil, nil, err
		}
		doc.Web = *raw.Web
	}
	var warns []Warning
	names := make([]string, 0, len(raw.Extensions))
	for name := range raw.Extensions {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		entries, w := parseExtensionEntries(name, raw.Extensions[name])
		warns = append(warns, w...)
		for _, x := range w {
			if x.Code == WarnExtensionMalformed {
				doc.ignored[name] = append(doc.ignored[name], x.Message)
			}
		}
		if len(entries) > 0 {
			doc.Extensions[name] = entries
		}
	}
	return doc, warns, nil
}

// rawOrNil keeps a raw member as it came, or nil when absent.
func rawOrNil(v jsontext.Value) json.RawMessage {
	if v == nil {
		return nil
	}
	return json.RawMessage(slices.Clone(v))
}

// parseExtensionEntries reads one extensions member in either shape.
func parseExtensionEntries(name string, msg jsontext.Value) ([]ExtensionEntry, []Warning) {
	malformed := func(why string) []Warning {
		return []Warning{{Code: WarnExtensionMalformed, Message: fmt.Sprintf("extensions.%s %s, so it is ignored", name, why)}}
	}
	trimmed := bytes.TrimSpace(msg)
	var warns []Warning
	var items []jsontext.Value
	switch {
	case bytes.HasPrefix(trimmed, []byte("[")):
		if err := jsonv2.Unmarshal(trimmed, &items); err != nil {
			return nil, malformed("is not a list of version objects")
		}
	case bytes.HasPrefix(trimmed, []byte("{")):
		items = []jsontext.Value{trimmed}
		warns = append(warns, Warning{Code: WarnExtensionObject, Message: fmt.Sprintf(
			"extensions.%s is a single object (draft 0.1 shape); list version objects instead: [{\"version\": \"...\"}]", name)})
	default:
		return nil, malformed("is neither a list of version objects nor an object")
	}
	var entries []ExtensionEntry
	for i, it := range items {
		v, why := entryVersion(it)
		if why != "" {
			warns = append(warns, malformed(fmt.Sprintf("entry %d: %s", i+1, why))...)
			continue
		}
		entry := ExtensionEntry{Version: v}
		if !slices.Contains(entries, entry) {
			entries = append(entries, entry)
		}
	}
	return entries, warns
}

// entryVersion reads the version of one extension entry, or says in words
// what is wrong with it.
func entryVersion(it jsontext.Value) (version, why string) {
	if k := jsontext.Value(bytes.TrimSpace(it)).Kind(); k != '{' {
		return "", fmt.Sprintf("is a json %s, not an object", kindName(k))
	}
	var e struct {
		Version jsontext.Value `json:"version"`
	}
	if err := jsonv2.Unmarshal(it, &e); err != nil {
		return "", "is not a valid object"
	}
	if e.Version == nil {
		return "", "has no version"
	}
	if k := e.Version.Kind(); k != '"' {
		return "", fmt.Sprintf("version must be a string, not a json %s", kindName(k))
	}
	var v string
	if err := jsonv2.Unmarshal(e.Version, &v); err != nil || v == "" {
		return "", "version must be a non-empty string"
	}
	return v, ""
}

// checkAskedHost checks that domain speaks for askedHost.
func checkAskedHost(domain, askedHost string) error {
	asked, err := normalizeHost(stripPort(askedHost))
	if err != nil {
		return docErrorf("asked host %q: %v", askedHost, err)
	}
	if domain == asked || "www."+domain == asked {
		return nil
	}
	return docErrorf("organization.domain %q does not match the host asked for, %q", domain, asked)
}

// checkEndpoint checks web.browser_session_endpoint against domain.
func checkEndpoint(domain, endpoint string) error {
	const field = "web.browser_session_endpoint"
	u, err := url.Parse(endpoint)
	if err != nil {
		return docErrorf("%s is not a url: %q", field, endpoint)
	}
	if u.Scheme != "https" || u.Opaque != "" {
		return docErrorf("%s must be https, got %q", field, endpoint)
	}
	if u.User != nil {
		return docErrorf("%s must not hold userinfo", field)
	}
	if !MatchesURL(domain, endpoint) {
		return docErrorf("%s must be on %s or a subdomain, got %q", field, domain, endpoint)
	}
	return nil
}

// jsonError turns a JSON decoding error into one line that names the
// member by its path, without Go type names.
func jsonError(err error) error {
	var se *jsonv2.SemanticError
	if errors.As(err, &se) && se.JSONKind != 0 {
		path := strings.ReplaceAll(strings.TrimPrefix(string(se.JSONPointer), "/"), "/", ".")
		if path == "" {
			return docErrorf("the document is a json %s, not an object", kindName(se.JSONKind))
		}
		return docErrorf("%s has the wrong type, a json %s", path, kindName(se.JSONKind))
	}
	return docErrorf("invalid json: %s", oneLine(strings.TrimPrefix(err.Error(), "jsontext: ")))
}

// kindName names a JSON kind in words.
func kindName(k jsontext.Kind) string {
	switch k {
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	default:
		return k.String()
	}
}

// oneLine folds an error message onto one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// Supports reports whether the document lists e.Name with e.Version.
func (d *Document) Supports(e Extension) bool {
	if d == nil {
		return false
	}
	return slices.Contains(d.Extensions[e.Name], ExtensionEntry{Version: e.Version})
}

// RequireBrowserControl returns an error matching [ErrNoBrowserControl]
// unless the document lists browser-control v1 and has an HTTPS
// web.browser_session_endpoint on its domain.
func (d *Document) RequireBrowserControl() error {
	if d == nil {
		return fmt.Errorf("%w: no document", ErrNoBrowserControl)
	}
	if !d.Supports(BrowserControlV1()) {
		if entries := d.Extensions[ExtensionName]; len(entries) > 0 {
			vs := make([]string, len(entries))
			for i, e := range entries {
				vs[i] = strconv.Quote(e.Version)
			}
			return fmt.Errorf("%w: extensions lists %s versions %s, not %q", ErrNoBrowserControl, ExtensionName, strings.Join(vs, ", "), ExtensionVersion)
		}
		if why := d.ignored[ExtensionName]; len(why) > 0 {
			return fmt.Errorf("%w: %s", ErrNoBrowserControl, strings.Join(why, "; "))
		}
		return fmt.Errorf("%w: extensions does not list %s", ErrNoBrowserControl, ExtensionName)
	}
	if d.Web.BrowserSessionEndpoint == "" {
		return fmt.Errorf("%w: web.browser_session_endpoint is missing", ErrNoBrowserControl)
	}
	if err := checkEndpoint(d.Organization.Domain, d.Web.BrowserSessionEndpoint); err != nil {
		return fmt.Errorf("%w: %s", ErrNoBrowserControl, strings.TrimPrefix(err.Error(), "poppy.json: "))
	}
	return nil
}
