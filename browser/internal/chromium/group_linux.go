package chromium

import (
	"bytes"
	"os"
	"strconv"
)

// groupRunning reports whether a process of group pgid is still running,
// not counting zombies: once killed, Chromium's helpers are zombies within
// milliseconds and write nothing more, but they are orphans whose reaping
// is up to pid 1, which may take a second or more (measured 1.3 s on a
// quiet machine). ok is false when /proc cannot be read.
func groupRunning(pgid int) (running, ok bool) {
	dir, err := os.Open("/proc")
	if err != nil {
		return false, false
	}
	defer dir.Close()
	names, err := dir.Readdirnames(-1)
	if err != nil {
		return false, false
	}
	for _, name := range names {
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		stat, err := os.ReadFile("/proc/" + name + "/stat")
		if err != nil {
			continue // gone since the listing
		}
		state, group, ok := parseStat(stat)
		if ok && group == pgid && state != 'Z' && state != 'X' {
			return true, true
		}
	}
	return false, true
}

// parseStat reads the state and the process group from /proc/<pid>/stat:
// "pid (comm) state ppid pgrp ...", where comm may hold spaces and
// parentheses, so the fields are counted from its last ')'.
func parseStat(stat []byte) (state byte, pgrp int, ok bool) {
	end := bytes.LastIndexByte(stat, ')')
	if end < 0 {
		return 0, 0, false
	}
	fields := bytes.Fields(stat[end+1:])
	if len(fields) < 3 || len(fields[0]) != 1 {
		return 0, 0, false
	}
	pgrp, err := strconv.Atoi(string(fields[2]))
	if err != nil {
		return 0, 0, false
	}
	return fields[0][0], pgrp, true
}
