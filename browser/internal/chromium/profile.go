package chromium

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// profilePrefix starts the name of every temporary profile, followed by the
// owner's pid and a dash: "poppy-browser-profile-4242-123456".
const profilePrefix = "poppy-browser-profile-"

func makeProfile(tmp string) (string, error) {
	return os.MkdirTemp(tmp, fmt.Sprintf("%s%d-", profilePrefix, os.Getpid()))
}

func removeProfile(dir string) error {
	if dir == "" {
		return nil
	}
	return os.RemoveAll(dir)
}

// removeStaleProfiles removes the temporary profiles in tmp whose owner
// process is gone: a runtime that was killed (SIGKILL, OOM) could not
// remove its own, and a profile holds cookies. Profiles of live runtimes
// are left alone. Errors are ignored: this is a sweep, not a promise.
func removeStaleProfiles(tmp string) {
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return
	}
	for _, e := range entries {
		pid, ok := profileOwner(e.Name())
		if !ok || !e.IsDir() || pid == os.Getpid() || processAlive(pid) {
			continue
		}
		_ = os.RemoveAll(filepath.Join(tmp, e.Name()))
	}
}

// profileOwner reads the owner pid from a profile's directory name.
func profileOwner(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, profilePrefix)
	if !ok {
		return 0, false
	}
	num, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, false
	}
	pid, err := strconv.Atoi(num)
	if err != nil || pid <= 0 {
		return 0, false
	}
	return pid, true
}
