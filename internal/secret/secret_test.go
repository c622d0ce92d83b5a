package secret

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

const text = "s3cr3t-t0ken"

type holder struct {
	Exported Value
	hidden   Value
	ptr      *Value
}

func TestValueNeverPrints(t *testing.T) {
	v := New(text)
	h := holder{Exported: v, hidden: v, ptr: &v}
	var outs []string
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%10.3s"} {
		outs = append(outs, fmt.Sprintf(verb, v), fmt.Sprintf(verb, h), fmt.Sprintf(verb, &h), fmt.Sprintf(verb, []Value{v}))
	}
	outs = append(outs, fmt.Sprint(v, h), fmt.Sprintln(h))

	var logged bytes.Buffer
	for _, hd := range []slog.Handler{slog.NewJSONHandler(&logged, nil), slog.NewTextHandler(&logged, nil)} {
		slog.New(hd).Info("x", "key", v, "holder", h, "group", slog.GroupValue(slog.Any("k", v)))
	}
	outs = append(outs, logged.String())

	for _, x := range []any{v, h, map[Value]int{v: 1}, map[string]Value{"k": v}, []Value{v}} {
		js, err := json.Marshal(x)
		if err != nil {
			t.Fatalf("json %T: %v", x, err)
		}
		outs = append(outs, string(js))
	}
	if x, err := xml.Marshal(struct{ K Value }{v}); err == nil {
		outs = append(outs, string(x))
	}
	for _, s := range outs {
		if strings.Contains(s, text) || strings.Contains(s, fmt.Sprintf("%x", text)) {
			t.Errorf("secret leaked: %s", s)
		}
	}
	if !strings.Contains(outs[0], Redacted) {
		t.Errorf("%%v = %q, want %q", outs[0], Redacted)
	}
}

func TestValueReveal(t *testing.T) {
	if got := New(text).Reveal(); got != text {
		t.Errorf("Reveal = %q", got)
	}
	var zero Value
	if !zero.IsZero() || !New("").IsZero() || New("x").IsZero() {
		t.Error("IsZero is wrong")
	}
	if !New("a").Equal(New("a")) || New("a").Equal(New("b")) {
		t.Error("Equal is wrong")
	}
}
