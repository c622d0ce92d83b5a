package audit

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// flakyWriter fails (after writing part of a line) while broken is set.
type flakyWriter struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	broken bool
}

func (w *flakyWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.broken {
		n := len(p) / 2
		w.buf.Write(p[:n])
		return n, syscall.ENOSPC
	}
	return w.buf.Write(p)
}

func (w *flakyWriter) set(broken bool) { w.mu.Lock(); w.broken = broken; w.mu.Unlock() }

// TestFailsClosed: a line that cannot be written fully makes Record and
// Check fail with ErrUnavailable and tells the watchers; once writing
// works, Check writes what was owed, in order and as whole lines, and the
// watchers hear that it works again.
func TestFailsClosed(t *testing.T) {
	w := &flakyWriter{}
	a := New(w, nil)
	var health []string
	stop := a.WatchHealth(func(err error) {
		if err != nil {
			health = append(health, "broken")
		} else {
			health = append(health, "ok")
		}
	})
	defer stop()
	if err := a.Record(Entry{Event: EventAction, Tool: "browser_click"}); err != nil {
		t.Fatal(err)
	}
	w.set(true)
	if err := a.Record(Entry{Event: EventControl, How: HowTake, By: ByUser}); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Record on a full disk: %v, want ErrUnavailable", err)
	}
	if err := a.Record(Entry{Event: EventControl, How: HowHandedBack, By: ByUser}); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("second Record on a full disk: %v", err)
	}
	if err := a.Check(); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Check on a full disk: %v", err)
	}
	w.set(false)
	if err := a.Check(); err != nil {
		t.Fatalf("Check once writing works: %v", err)
	}
	got, err := Read(bytes.NewReader(w.buf.Bytes()))
	if err != nil {
		t.Fatalf("the file after recovery is not whole lines: %v\n%s", err, w.buf.String())
	}
	var hows []string
	for _, e := range got {
		hows = append(hows, string(e.Event)+"/"+string(e.How))
	}
	if want := "action//control/take/control/handed_back"; strings.Join(hows, "/") != want {
		t.Errorf("lines after recovery: %v, want %s", hows, want)
	}
	if strings.Join(health, ",") != "broken,ok" {
		t.Errorf("watchers heard %v, want broken then ok", health)
	}
}

// TestOpenRefuses: a symbolic link, a directory and a FIFO are refused; an
// existing file with a wider mode is set to 0600.
func TestOpenRefuses(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{link, dir, fifo} {
		if a, err := Open(p); err == nil {
			a.Close()
			t.Errorf("Open(%s) succeeded", filepath.Base(p))
		}
	}
	a, err := Open(target)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	fi, err := os.Stat(target)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("an existing audit log's mode is %v, want 0600", fi.Mode().Perm())
	}
}

// TestFullDisk: on a real 12 KiB tmpfs, recording until the disk is full
// fails with ErrUnavailable, the file holds only whole lines, and once
// space is freed the lines owed are written.
func TestFullDisk(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=12k", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a small tmpfs here (root only): %v %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", dir).Run() })
	filler := filepath.Join(dir, "filler")
	path := filepath.Join(dir, "audit.jsonl")
	a, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	// Fill the disk but for a little room.
	if err := os.WriteFile(filler, bytes.Repeat([]byte("x"), 8<<10), 0o600); err != nil {
		t.Fatal(err)
	}
	var failed error
	recorded := 0
	for i := 0; i < 200 && failed == nil; i++ {
		failed = a.Record(Entry{Event: EventAction, Tool: "browser_click", Message: strings.Repeat("m", 100)})
		recorded++
	}
	if !errors.Is(failed, ErrUnavailable) {
		t.Fatalf("200 lines on a 12 KiB disk: %v, want ErrUnavailable", failed)
	}
	if err := a.Check(); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Check on the full disk: %v", err)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if err := a.Check(); err != nil {
		t.Fatalf("Check after space was freed: %v", err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Read(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("the log is not whole lines: %v", err)
	}
	if len(got) != recorded {
		t.Errorf("%d lines in the log, want the %d recorded", len(got), recorded)
	}
}
