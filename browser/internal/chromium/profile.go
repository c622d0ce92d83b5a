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

// preferences turn off preloading (speculation-rules prefetch and
// prerender, "Preload pages" in the settings): the browser process makes
// those requests itself, where the interception that adds the
// Poppy-Extensions header does not see them (PROTOCOL.md), so a Company
// request would go without it.
const preferences = `{"net":{"network_prediction_options":2}}`

// writePreferences writes the profile's preferences before its first start,
// leaving a profile that has them alone.
func writePreferences(dir string) error {
	path := filepath.Join(dir, "Default", "Preferences")
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(preferences), 0o600)
}
