package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// mem is what a process (or a set of them) holds in memory, in bytes: its
// proportional set size (shared pages split between the processes mapping
// them, so other programs on the machine lower it) and its private pages
// (USS: what ending it would free; no other process changes it).
type mem struct{ pss, private int64 }

func (m mem) plus(o mem) mem { return mem{m.pss + o.pss, m.private + o.private} }

// rollup reads a process's memory from /proc/PID/smaps_rollup; zero if it
// is gone.
func rollup(pid int) mem {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return mem{}
	}
	var m mem
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "Pss:":
			m.pss = kb * 1024
		case "Private_Clean:", "Private_Dirty:":
			m.private += kb * 1024
		}
	}
	return m
}

// pss is a process's proportional set size in bytes, 0 if it is gone.
func pss(pid int) int64 { return rollup(pid).pss }

// pssOfGroup sums the proportional set sizes of a process group (Chromium
// and its helpers).
func pssOfGroup(pgid int) int64 {
	var sum int64
	for pid, p := range processes() {
		if p.pgid == pgid {
			sum += pss(pid)
		}
	}
	return sum
}

type proc struct {
	ppid, pgid int
	cmdline    string
}

// processes lists the machine's processes by pid.
func processes() map[int]proc {
	dirs, _ := os.ReadDir("/proc")
	ps := map[int]proc{}
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + d.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses.
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(f) < 3 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		pgid, _ := strconv.Atoi(f[2])
		cmdline, _ := os.ReadFile("/proc/" + d.Name() + "/cmdline")
		ps[pid] = proc{ppid: ppid, pgid: pgid, cmdline: string(cmdline)}
	}
	return ps
}

// marked returns the processes whose command line holds marker, with
// their descendants and the members of the process groups they lead: a
// browser a pool launched with the marker among its flags, and its
// helpers (which do not carry unknown flags).
func marked(marker string) []int {
	ps := processes()
	in := map[int]bool{}
	for pid, p := range ps {
		if strings.Contains(p.cmdline, marker) {
			in[pid] = true
		}
	}
	leaders := map[int]bool{}
	for pid := range in {
		if ps[pid].pgid == pid {
			leaders[pid] = true
		}
	}
	for grew := true; grew; {
		grew = false
		for pid, p := range ps {
			if !in[pid] && (in[p.ppid] || leaders[p.pgid]) {
				in[pid], grew = true, true
			}
		}
	}
	pids := make([]int, 0, len(in))
	for pid := range in {
		pids = append(pids, pid)
	}
	return pids
}

// memOf sums the memory of pids.
func memOf(pids []int) mem {
	var m mem
	for _, pid := range pids {
		m = m.plus(rollup(pid))
	}
	return m
}

// killMarked kills the processes marked finds.
func killMarked(marker string) {
	for _, pid := range marked(marker) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

// settled reads the memory of pids() and waits until it holds still: two
// readings 500 ms apart with the same processes and PSS within 2 % (a
// browser that just started, or pages just left, still spawn and grow).
// After 30 s it returns the last reading and says so on stderr.
func settled(what string, pids func() []int) mem {
	deadline := time.Now().Add(30 * time.Second)
	last, lastN := memOf(pids()), -1
	for {
		<-time.After(500 * time.Millisecond) // polling /proc: no event to wait on
		ps := pids()
		m := memOf(ps)
		if len(ps) == lastN && abs(m.pss-last.pss)*50 <= last.pss {
			return m
		}
		if time.Now().After(deadline) {
			fmt.Fprintf(os.Stderr, "sessions: %s did not hold still within 30 s\n", what)
			return m
		}
		last, lastN = m, len(ps)
	}
}

func abs(n int64) int64 { return max(n, -n) }
