package browser

import "strings"

// envNames are the variables Chromium gets from our environment, when set:
// what it needs to find itself and its libraries, a home, the locale, a
// display, fonts, a session bus and the user's proxy. Nothing else passes:
// the runtime's own secrets (a model's API key, POPPY_MCP_TOKEN) must not
// reach processes that run page content.
var envNames = map[string]bool{
	"PATH": true, "HOME": true, "LANG": true, "TZ": true, "TMPDIR": true,
	"DISPLAY": true, "WAYLAND_DISPLAY": true, "XAUTHORITY": true,
	"DBUS_SESSION_BUS_ADDRESS": true,
	"http_proxy":               true, "https_proxy": true, "no_proxy": true,
	"HTTP_PROXY": true, "HTTPS_PROXY": true, "NO_PROXY": true,
}

// chromiumEnv keeps the entries of environ ("NAME=value") that Chromium may
// have: the names in envNames, LC_* (locale), FONTCONFIG_* (fonts) and the
// XDG base and runtime directories (XDG_*_HOME, XDG_*_DIR, XDG_*_DIRS).
func chromiumEnv(environ []string) []string {
	var out []string
	for _, kv := range environ {
		name, _, ok := strings.Cut(kv, "=")
		if ok && allowedEnv(name) {
			out = append(out, kv)
		}
	}
	return out
}

func allowedEnv(name string) bool {
	switch {
	case envNames[name]:
		return true
	case strings.HasPrefix(name, "LC_"), strings.HasPrefix(name, "FONTCONFIG_"):
		return true
	case strings.HasPrefix(name, "XDG_"):
		return strings.HasSuffix(name, "_HOME") || strings.HasSuffix(name, "_DIR") || strings.HasSuffix(name, "_DIRS")
	}
	return false
}
