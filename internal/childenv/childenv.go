// Package childenv decides which of the runtime's environment variables a
// process it starts may see. Every child gets an allowlist, never the
// environment whole: the runtime's secrets (a model's API key,
// POPPY_MCP_TOKEN, anything else) stay out of Chromium, which runs page
// content, and out of a credential command, which runs a shell.
//
// There are two lists, one per kind of child: [Chromium] and [Command];
// [Keep] applies either.
package childenv

import "strings"

// Keep returns the entries of environ ("NAME=value", as os.Environ gives
// them) whose name allowed accepts, in their order.
func Keep(environ []string, allowed func(name string) bool) []string {
	var out []string
	for _, kv := range environ {
		name, _, ok := strings.Cut(kv, "=")
		if ok && allowed(name) {
			out = append(out, kv)
		}
	}
	return out
}

// chromiumNames are what Chromium needs to find itself and its libraries, a
// home, the locale, a display, a session bus and the user's proxy.
var chromiumNames = map[string]bool{
	"PATH": true, "HOME": true, "LANG": true, "TZ": true, "TMPDIR": true,
	"DISPLAY": true, "WAYLAND_DISPLAY": true, "XAUTHORITY": true,
	"DBUS_SESSION_BUS_ADDRESS": true,
	"http_proxy":               true, "https_proxy": true, "no_proxy": true,
	"HTTP_PROXY": true, "HTTPS_PROXY": true, "NO_PROXY": true,
}

// Chromium accepts the variables a Chromium we start may have: PATH, HOME,
// LANG, LC_*, TZ, TMPDIR, DISPLAY, WAYLAND_DISPLAY, XAUTHORITY, the XDG base
// and runtime directories (XDG_*_HOME, XDG_*_DIR, XDG_*_DIRS), FONTCONFIG_*,
// DBUS_SESSION_BUS_ADDRESS, and http_proxy, https_proxy and no_proxy in
// either case.
func Chromium(name string) bool {
	switch {
	case chromiumNames[name]:
		return true
	case strings.HasPrefix(name, "LC_"), strings.HasPrefix(name, "FONTCONFIG_"):
		return true
	case strings.HasPrefix(name, "XDG_"):
		return strings.HasSuffix(name, "_HOME") || strings.HasSuffix(name, "_DIR") || strings.HasSuffix(name, "_DIRS")
	}
	return false
}

// secretWords are parts of a variable name that mark it as a secret.
var secretWords = []string{"TOKEN", "KEY", "SECRET", "PASSWORD", "PASSPHRASE", "CREDENTIAL", "AUTH", "COOKIE"}

// Command accepts the variables a credential command may have: PATH, HOME,
// USER, LOGNAME, SHELL, TMPDIR, TZ, LANG, LANGUAGE and LC_*, and every
// POPPY_* variable whose name does not say it is a secret (TOKEN, KEY,
// SECRET, PASSWORD, PASSPHRASE, CREDENTIAL, AUTH, COOKIE), so
// POPPY_MCP_TOKEN stays out. Not the proxy or cloud variables, not
// SSH_AUTH_SOCK.
func Command(name string) bool {
	switch name {
	case "PATH", "HOME", "USER", "LOGNAME", "SHELL", "TMPDIR", "TZ", "LANG", "LANGUAGE":
		return true
	}
	if strings.HasPrefix(name, "LC_") {
		return true
	}
	if rest, ok := strings.CutPrefix(name, "POPPY_"); ok {
		upper := strings.ToUpper(rest)
		for _, w := range secretWords {
			if strings.Contains(upper, w) {
				return false
			}
		}
		return true
	}
	return false
}
