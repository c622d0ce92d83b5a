package childenv_test

import (
	"slices"
	"testing"

	"github.com/poppy-browser/poppy-browser/internal/childenv"
)

func TestChromiumEnvAllowlist(t *testing.T) {
	in := []string{
		"PATH=/usr/bin", "HOME=/root", "LANG=C.UTF-8", "LC_ALL=C", "TZ=UTC", "TMPDIR=/tmp",
		"DISPLAY=:0", "WAYLAND_DISPLAY=wayland-0", "XAUTHORITY=/x", "XDG_RUNTIME_DIR=/run/user/0",
		"XDG_CONFIG_HOME=/c", "XDG_DATA_DIRS=/d", "FONTCONFIG_PATH=/f", "DBUS_SESSION_BUS_ADDRESS=unix:path=/b",
		"https_proxy=http://p", "NO_PROXY=localhost",
		"OPENAI_API_KEY=sk-1", "POPPY_MCP_TOKEN=t", "XDG_SESSION_COOKIE=c", "AWS_SECRET_ACCESS_KEY=a", "LD_PRELOAD=/evil.so", "PATHX=1",
	}
	got := childenv.Keep(in, childenv.Chromium)
	want := in[:16]
	if !slices.Equal(got, want) {
		t.Errorf("Keep(Chromium) kept %q, want %q", got, want)
	}
}
