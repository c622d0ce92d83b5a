package spec

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFormatExtensions(t *testing.T) {
	tests := []struct {
		name    string
		exts    []Extension
		want    string
		wantErr bool
	}{
		{"browser-control v1", []Extension{BrowserControlV1()}, `"browser-control";v="1"`, false},
		{"two", []Extension{BrowserControlV1(), {"operations", "2"}}, `"browser-control";v="1", "operations";v="2"`, false},
		{"none", nil, "", false},
		{"quote escaped", []Extension{{`a"b`, `1\2`}}, `"a\"b";v="1\\2"`, false},
		{"empty name", []Extension{{"", "1"}}, "", true},
		{"empty version", []Extension{{"x", ""}}, "", true},
		{"non-ascii", []Extension{{"é", "1"}}, "", true},
		{"control char", []Extension{{"a\nb", "1"}}, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := FormatExtensions(tc.exts)
			if (err != nil) != tc.wantErr {
				t.Fatalf("FormatExtensions(%v) error = %v, want error %v", tc.exts, err, tc.wantErr)
			}
			if err != nil && !errors.Is(err, ErrBadHeader) {
				t.Errorf("error %v does not match ErrBadHeader", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("FormatExtensions(%v) (-want +got):\n%s", tc.exts, diff)
			}
		})
	}
}

func TestParseExtensions(t *testing.T) {
	bc := BrowserControlV1()
	tests := []struct {
		name    string
		values  []string
		want    []Extension
		wantErr string // exact message; "" means success
	}{
		{"good", []string{`"browser-control";v="1"`}, []Extension{bc}, ""},
		{"spaces around", []string{`  "browser-control";v="1"  `}, []Extension{bc}, ""},
		{"other params ignored", []string{`"browser-control";x;v="1";y=2`}, []Extension{bc}, ""},
		{"last v wins", []string{`"browser-control";v="0";v="1"`}, []Extension{bc}, ""},
		{"multiple members", []string{`"browser-control";v="1", "operations";v="1"`},
			[]Extension{bc, {"operations", "1"}}, ""},
		{"multiple lines", []string{`"operations";v="1"`, `"browser-control";v="1"`},
			[]Extension{{"operations", "1"}, bc}, ""},
		{"empty", nil, nil, ""},
		{"empty line", []string{""}, nil, ""},
		{"token name", []string{`browser-control;v="1"`}, nil,
			"poppy-extensions: member 1 is a token, not a string"},
		{"token name second", []string{`"a";v="1", b;v="1"`}, nil,
			"poppy-extensions: member 2 is a token, not a string"},
		{"integer v", []string{`"browser-control";v=1`}, nil,
			`poppy-extensions: member 1 ("browser-control") parameter v is an integer, not a string`},
		{"token v", []string{`"browser-control";v=one`}, nil,
			`poppy-extensions: member 1 ("browser-control") parameter v is a token, not a string`},
		{"boolean v", []string{`"browser-control";v`}, nil,
			`poppy-extensions: member 1 ("browser-control") parameter v is a boolean, not a string`},
		{"missing v", []string{`"browser-control"`}, nil,
			`poppy-extensions: member 1 ("browser-control") has no parameter v`},
		{"empty v", []string{`"browser-control";v=""`}, nil,
			`poppy-extensions: member 1 ("browser-control") parameter v is empty`},
		{"empty name", []string{`"";v="1"`}, nil, "poppy-extensions: member 1 has an empty name"},
		{"integer name", []string{`1;v="1"`}, nil, "poppy-extensions: member 1 is an integer, not a string"},
		{"inner list", []string{`("browser-control");v="1"`}, nil,
			"poppy-extensions: member 1 is an inner list, not a string"},
		{"garbage", []string{`"browser-control";v="1" garbage`}, nil,
			"poppy-extensions: not an RFC 9651 list: invalid list format: character 24"},
		{"unterminated", []string{`"browser-control`}, nil,
			"poppy-extensions: not an RFC 9651 list: invalid string format: character 16"},
		{"trailing comma", []string{`"browser-control";v="1",`}, nil,
			"poppy-extensions: not an RFC 9651 list: invalid list format: character 24"},
		{"uppercase param key", []string{`"browser-control";V="1"`}, nil,
			"poppy-extensions: not an RFC 9651 list: invalid key format: character 18"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseExtensions(tc.values)
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
				if !errors.Is(err, ErrBadHeader) {
					t.Errorf("error %v does not match ErrBadHeader", err)
				}
			}
			if diff := cmp.Diff(tc.wantErr, gotErr); diff != "" {
				t.Errorf("ParseExtensions(%q) error (-want +got):\n%s", tc.values, diff)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ParseExtensions(%q) (-want +got):\n%s", tc.values, diff)
			}
		})
	}
}

func TestDeclares(t *testing.T) {
	bc := BrowserControlV1()
	tests := []struct {
		name string
		exts []Extension
		want bool
	}{
		{"listed", []Extension{{"operations", "1"}, bc}, true},
		{"other version", []Extension{{ExtensionName, "2"}}, false},
		{"name case differs", []Extension{{"Browser-Control", "1"}}, false},
		{"none", nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Declares(tc.exts, bc); got != tc.want {
				t.Errorf("Declares(%v, %v) = %v, want %v", tc.exts, bc, got, tc.want)
			}
		})
	}
}

// TestParseExtensionsEmptyValues holds ParseExtensions to its comment.
func TestParseExtensionsEmptyValues(t *testing.T) {
	for _, v := range [][]string{nil, {}, {""}, {"  "}} {
		if got, err := ParseExtensions(v); err != nil || len(got) != 0 {
			t.Errorf("ParseExtensions(%q) = %v, %v; want nothing, no error", v, got, err)
		}
	}
	for _, v := range [][]string{{"", ""}, {`"a";v="1"`, ""}, {"", `"a";v="1"`}} {
		if _, err := ParseExtensions(v); err == nil {
			t.Errorf("ParseExtensions(%q) succeeded; an empty line among several is an empty member", v)
		}
	}
}
