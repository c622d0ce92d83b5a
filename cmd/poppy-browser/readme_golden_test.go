package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// updateReadme rewrites README.md's golden blocks from the program's
// real output: go test ./cmd/poppy-browser -run 'TestDemoAutoUser$|TestTestsiteReadyLinesJoin' -update-readme
var updateReadme = flag.Bool("update-readme", false, "rewrite README.md's golden blocks (the demo transcript, the testsite's lines) from this run")

const readmePath = "../../README.md"

// readmeGolden returns the lines of README.md's fenced block that follows
// the marker <!-- readme-golden: NAME ... -->.
func readmeGolden(t *testing.T, name string) []string {
	t.Helper()
	raw, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	_, body, ok := cutGolden(string(raw), name)
	if !ok {
		t.Fatalf("README.md has no block after <!-- readme-golden: %s -->", name)
	}
	return strings.Split(body, "\n")
}

// writeReadmeGolden replaces that block's lines with lines.
func writeReadmeGolden(t *testing.T, name string, lines []string) {
	t.Helper()
	raw, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	before, body, ok := cutGolden(string(raw), name)
	if !ok {
		t.Fatalf("README.md has no block after <!-- readme-golden: %s -->", name)
	}
	after := string(raw)[len(before)+len(body):]
	if err := os.WriteFile(filepath.Clean(readmePath), []byte(before+strings.Join(lines, "\n")+after), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("rewrote README.md's %s block", name)
}

// cutGolden splits README's text at the golden block NAME: the text
// before its first line, and its lines (without the closing fence).
func cutGolden(readme, name string) (before, body string, ok bool) {
	i := strings.Index(readme, "<!-- readme-golden: "+name+" ")
	if i < 0 {
		return "", "", false
	}
	fence := strings.Index(readme[i:], "\n```")
	if fence < 0 {
		return "", "", false
	}
	eol := strings.Index(readme[i+fence+1:], "\n")
	if eol < 0 {
		return "", "", false
	}
	start := i + fence + 1 + eol + 1
	end := strings.Index(readme[start:], "\n```")
	if end < 0 {
		return "", "", false
	}
	return readme[:start], readme[start : start+end], true
}

// diffLines says where want and got first differ ("" when equal).
func diffLines(want, got []string) string {
	for i := 0; i < max(len(want), len(got)); i++ {
		w, g := "(none)", "(none)"
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if w != g {
			return fmt.Sprintf("line %d:\nREADME:  %s\nprogram: %s", i+1, w, g)
		}
	}
	return ""
}

var (
	demoStep      = regexp.MustCompile(`^step (\d+): `)
	demoStepCount = regexp.MustCompile(`^agent: done after (\d+) steps`)
)

// demoStory is the demo's transcript as two stories told at once, the
// agent's and the User's (the auto-user runs beside the agent, so their
// lines may interleave either way), with what depends on the machine's
// speed left out: the agent's waits for the User (the User may take
// control before, during or after a 10 s wait) and so the steps' numbers.
func demoStory(lines []string) (agentSide, userSide []string) {
	n := 0
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "user: "):
			userSide = append(userSide, l)
			continue
		case strings.Contains(l, ": wait for the User to finish their step: "):
			continue
		case demoStep.MatchString(l):
			n++
			l = demoStep.ReplaceAllString(l, "step "+strconv.Itoa(n)+": ")
		case demoStepCount.MatchString(l):
			l = demoStepCount.ReplaceAllString(l, "agent: done after "+strconv.Itoa(n)+" steps")
		}
		agentSide = append(agentSide, l)
	}
	return agentSide, userSide
}

// checkReadmeDemoTranscript: README's demo transcript is this run's
// output, but for the timing demoStory leaves out.
func checkReadmeDemoTranscript(t *testing.T, out string) {
	t.Helper()
	got := strings.Split(strings.TrimSpace(out), "\n")
	if *updateReadme {
		writeReadmeGolden(t, "demo", got)
		return
	}
	readme := readmeGolden(t, "demo")
	wantAgent, wantUser := demoStory(readme)
	gotAgent, gotUser := demoStory(got)
	if d := diffLines(wantAgent, gotAgent); d != "" {
		t.Errorf("README.md's demo transcript is not the demo's output (the agent's lines; -update-readme rewrites it): %s", d)
	}
	if d := diffLines(wantUser, gotUser); d != "" {
		t.Errorf("README.md's demo transcript is not the demo's output (the User's lines; -update-readme rewrites it): %s", d)
	}
}

func TestDemoStoryLeavesOutTiming(t *testing.T) {
	fast := []string{
		"step 3: check in: webmcp_call {} -> denied (user_step): …",
		"user: takes control in the live view",
		"step 4: wait for the User to finish their step: wait {\"seconds\":10} -> done: The User took control of the browser.",
		"agent: the User holds the browser; waiting for them to hand it back",
		"step 5: tell the User the task is done: done {} -> done: Task ended.",
		"agent: done after 5 steps: ok",
	}
	slow := []string{
		"step 3: check in: webmcp_call {} -> denied (user_step): …",
		"step 4: wait for the User to finish their step: wait {\"seconds\":10} -> done: Waited 10 s.",
		"step 5: wait for the User to finish their step: wait {\"seconds\":10} -> done: The User took control of the browser.",
		"user: takes control in the live view",
		"agent: the User holds the browser; waiting for them to hand it back",
		"step 6: tell the User the task is done: done {} -> done: Task ended.",
		"agent: done after 6 steps: ok",
	}
	fa, fu := demoStory(fast)
	sa, su := demoStory(slow)
	if d := diffLines(fa, sa); d != "" {
		t.Errorf("a slow machine's story differs from a fast one's: %s", d)
	}
	if d := diffLines(fu, su); d != "" {
		t.Errorf("the User's lines differ: %s", d)
	}
	other := append([]string{}, fast...)
	other[4] = "step 5: tell the User the task is done: done {} -> failed: no."
	if oa, _ := demoStory(other); diffLines(fa, oa) == "" {
		t.Errorf("a different ending reads as the same story")
	}
}
