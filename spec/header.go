package spec

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/dunglas/httpsfv"
)

// Extension names one version of an extension, as poppy.json lists it and
// the Poppy-Extensions header declares it.
type Extension struct {
	Name    string
	Version string
}

// BrowserControlV1 returns the extension this package implements.
func BrowserControlV1() Extension {
	return Extension{Name: ExtensionName, Version: ExtensionVersion}
}

// String returns the extension as `name v`, e.g. "browser-control v1".
func (e Extension) String() string {
	return e.Name + " v" + e.Version
}

// versionParam is the parameter that carries an extension's version.
const versionParam = "v"

// ErrBadHeader matches (with errors.Is) every error from [ParseExtensions]
// and [FormatExtensions].
var ErrBadHeader = errors.New("invalid " + HeaderExtensions)

// headerError is a one-line header error that matches [ErrBadHeader] and
// wraps its cause, if any.
type headerError struct {
	msg   string
	cause error
}

func (e *headerError) Error() string {
	if e.cause != nil {
		return e.msg + ": " + e.cause.Error()
	}
	return e.msg
}

func (e *headerError) Unwrap() error        { return e.cause }
func (e *headerError) Is(target error) bool { return target == ErrBadHeader }

func headerErrorf(cause error, format string, args ...any) error {
	return &headerError{msg: "poppy-extensions: " + fmt.Sprintf(format, args...), cause: cause}
}

// FormatExtensions writes the Poppy-Extensions field value: an RFC 9651 List
// whose members are Strings (the names), each with a String parameter v
// (the version). BrowserControlV1 gives `"browser-control";v="1"`.
// It fails on an empty name or version, or one RFC 9651 cannot carry in a
// String (non-printable or non-ASCII characters).
func FormatExtensions(exts []Extension) (string, error) {
	l := make(httpsfv.List, 0, len(exts))
	for i, e := range exts {
		if e.Name == "" || e.Version == "" {
			return "", headerErrorf(nil, "member %d has an empty name or version", i+1)
		}
		it := httpsfv.NewItem(e.Name)
		it.Params.Add(versionParam, e.Version)
		l = append(l, it)
	}
	s, err := httpsfv.Marshal(l)
	if err != nil {
		return "", headerErrorf(err, "formatting")
	}
	return s, nil
}

// ParseExtensions parses Poppy-Extensions field values; several lines are
// joined with commas, as RFC 9651 section 4.2 says, in the order
// http.Header gives them. It accepts what RFC 9651 accepts for a List, then
// checks this header's types: each member is a String with a String
// parameter v. Tokens, inner lists, non-String or missing v and empty names
// or versions are refused. Other parameters are ignored. No values, or one
// empty or blank value, give no extensions and no error; an empty value
// among several lines makes an empty list member, which RFC 9651 refuses,
// so it is an error.
func ParseExtensions(values []string) ([]Extension, error) {
	l, err := httpsfv.UnmarshalList(values)
	if err != nil {
		return nil, headerErrorf(err, "not an RFC 9651 list")
	}
	var exts []Extension
	for i, m := range l {
		n := i + 1
		it, ok := m.(httpsfv.Item)
		if !ok {
			return nil, headerErrorf(nil, "member %d is an inner list, not a string", n)
		}
		name, ok := it.Value.(string)
		if !ok {
			return nil, headerErrorf(nil, "member %d is %s, not a string", n, kindOfBare(it.Value))
		}
		if name == "" {
			return nil, headerErrorf(nil, "member %d has an empty name", n)
		}
		pv, ok := it.Params.Get(versionParam)
		if !ok {
			return nil, headerErrorf(nil, "member %d (%q) has no parameter v", n, name)
		}
		v, ok := pv.(string)
		if !ok {
			return nil, headerErrorf(nil, "member %d (%q) parameter v is %s, not a string", n, name, kindOfBare(pv))
		}
		if v == "" {
			return nil, headerErrorf(nil, "member %d (%q) parameter v is empty", n, name)
		}
		exts = append(exts, Extension{Name: name, Version: v})
	}
	return exts, nil
}

// kindOfBare names an RFC 9651 bare item type with an article, for errors.
func kindOfBare(v any) string {
	switch v.(type) {
	case httpsfv.Token:
		return "a token"
	case int64:
		return "an integer"
	case float64:
		return "a decimal"
	case bool:
		return "a boolean"
	case []byte:
		return "a byte sequence"
	case httpsfv.DisplayString:
		return "a display string"
	case time.Time:
		return "a date"
	case string:
		return "a string"
	default:
		return fmt.Sprintf("a %T", v)
	}
}

// Declares reports whether exts holds e (name and version, exact match).
func Declares(exts []Extension, e Extension) bool {
	return slices.Contains(exts, e)
}
