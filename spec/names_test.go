package spec

import (
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestKindOf(t *testing.T) {
	tests := []struct {
		value  string
		onForm bool
		want   MarkKind
	}{
		{"interaction", false, Interaction},
		{"interaction", true, Interaction},
		{"submission", true, Submission},
		{"submission", false, Interaction},
		{"Submission", true, Interaction},
		{"SUBMISSION", true, Interaction},
		{" submission", true, Interaction},
		{"submission ", true, Interaction},
		{"", true, Interaction},
		{"", false, Interaction},
		{"yes", true, Interaction},
		{"true", false, Interaction},
	}
	for _, tc := range tests {
		t.Run(tc.value, func(t *testing.T) {
			if got := KindOf(tc.value, tc.onForm); got != tc.want {
				t.Errorf("KindOf(%q, %v) = %q, want %q", tc.value, tc.onForm, got, tc.want)
			}
		})
	}
}

func TestContractNames(t *testing.T) {
	got := []string{
		string(ControllerAgent), string(ControllerUser),
		string(OutcomeDone), string(OutcomeDenied), string(OutcomeFailed),
		string(ReasonUserStep), string(ReasonUserHasControl), string(ReasonStaleRef),
		string(ReasonNoSuchRef), string(ReasonObscured), string(ReasonNoSuchTool),
		string(Interaction), string(Submission),
		ExtensionName, ExtensionVersion, HeaderExtensions, MarkAttribute, WellKnownPath, BrowserJWTType,
	}
	want := []string{
		"agent", "user", "done", "denied", "failed",
		"user_step", "user_has_control", "stale_ref", "no_such_ref", "obscured", "no_such_tool",
		"interaction", "submission",
		"browser-control", "1", "Poppy-Extensions", "data-poppy-user-step", "/.well-known/poppy.json", "poppy-browser+jwt",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("contract names (-want +got):\n%s", diff)
	}
}

func TestRequirements(t *testing.T) {
	reqs := Requirements()
	idRE := regexp.MustCompile(`^BC-([0-9]+(?:\.[0-9]+)?)-[a-z0-9]+(?:-[a-z0-9]+)*$`)
	seen := map[string]bool{}
	sections := map[string]bool{}
	for _, r := range reqs {
		m := idRE.FindStringSubmatch(r.ID)
		if m == nil {
			t.Errorf("requirement ID %q is not BC-<section>-<slug>", r.ID)
			continue
		}
		if m[1] != r.Section {
			t.Errorf("requirement %s has section %q, want %q from its ID", r.ID, r.Section, m[1])
		}
		if seen[r.ID] {
			t.Errorf("requirement ID %s is listed twice", r.ID)
		}
		seen[r.ID] = true
		sections[strings.SplitN(r.Section, ".", 2)[0]] = true
		if len(r.Text) < 20 || !strings.HasSuffix(r.Text, ".") {
			t.Errorf("requirement %s text %q is not a sentence", r.ID, r.Text)
		}
		got, ok := RequirementByID(r.ID)
		if !ok || got != r {
			t.Errorf("RequirementByID(%q) = %v, %v; want %v, true", r.ID, got, ok, r)
		}
	}
	for _, s := range []string{"3", "4", "5", "6", "8"} {
		if !sections[s] {
			t.Errorf("no requirement covers section %s", s)
		}
	}
	for _, id := range []string{"BC-3-header", "BC-4-values", "BC-5-no-marked-step", "BC-5-only-user-ends",
		"BC-5-no-waiting", "BC-6-controller", "BC-6-company-only", "BC-8.2-not-a-guarantee"} {
		if _, ok := RequirementByID(id); !ok {
			t.Errorf("RequirementByID(%q) not found; others cite it", id)
		}
	}
	if _, ok := RequirementByID("BC-9-nope"); ok {
		t.Errorf("RequirementByID found an unknown ID")
	}
	reqs[0].Text = "changed"
	if Requirements()[0].Text == "changed" {
		t.Errorf("Requirements() shares its backing array with callers")
	}
}
