package chromium

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestParseStat(t *testing.T) {
	tests := []struct {
		stat      string
		wantState byte
		wantGroup int
		wantOK    bool
	}{
		{"4242 (chromium) S 1 4240 4240 0 -1", 'S', 4240, true},
		{"4243 (chromium) Z 1 4240 4240 0 -1", 'Z', 4240, true},
		{"7 (a) b) (c) R 1 9 9 0", 'R', 9, true}, // comm with parentheses and spaces
		{"7 (x) R 1", 0, 0, false},               // too short
		{"7 (x) RR 1 9", 0, 0, false},            // not a state
		{"7 (x) R 1 nine", 0, 0, false},
		{"no parenthesis", 0, 0, false},
		{"", 0, 0, false},
	}
	for _, tc := range tests {
		state, group, ok := parseStat([]byte(tc.stat))
		if state != tc.wantState || group != tc.wantGroup || ok != tc.wantOK {
			t.Errorf("parseStat(%q) = %q, %d, %v; want %q, %d, %v", tc.stat, state, group, ok, tc.wantState, tc.wantGroup, tc.wantOK)
		}
	}
}

func FuzzParseStat(f *testing.F) {
	f.Add([]byte("4242 (chromium) S 1 4240 4240 0 -1"))
	f.Add([]byte("1 ()) Z 0 1"))
	f.Fuzz(func(t *testing.T, stat []byte) {
		state, group, ok := parseStat(stat)
		if !ok && (state != 0 || group != 0) {
			t.Errorf("parseStat(%q) gave %q, %d without ok", stat, state, group)
		}
	})
}

// TestZombiesDoNotHoldTheWait: a killed member that nobody has reaped yet
// (here our own unreaped child; in a real stop, Chromium's orphaned
// helpers waiting on pid 1) runs no code, so the wait for the group ends
// without waiting for its reaping, while a running member still counts.
func TestZombiesDoNotHoldTheWait(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	defer cmd.Wait()
	if running, ok := groupRunning(pid); !ok || !running {
		t.Fatalf("a running group: groupRunning = %v, %v; want true, true", running, ok)
	}
	KillGroup(pid)
	deadline := time.Now().Add(10 * time.Second)
	for procState(t, pid) != 'Z' {
		if time.Now().After(deadline) {
			t.Fatal("the killed child never became a zombie")
		}
		time.Sleep(time.Millisecond)
	}
	if running, ok := groupRunning(pid); !ok || running {
		t.Fatalf("a group of one zombie: groupRunning = %v, %v; want false, true", running, ok)
	}
	start := time.Now()
	WaitGroupGone(pid) // the zombie is still there: only we can reap it
	if d := time.Since(start); d >= groupGoneBound {
		t.Errorf("WaitGroupGone waited out its bound (%s) for a zombie", d)
	}
}

func procState(t *testing.T, pid int) byte {
	t.Helper()
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	state, _, ok := parseStat(stat)
	if !ok {
		t.Fatalf("unreadable stat %q", strings.TrimSpace(string(stat)))
	}
	return state
}
