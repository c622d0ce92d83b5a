package mcpserver

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/poppy-browser/poppy-browser/internal/golden"
)

// TestExtAppsScript holds app/ext-apps/script.gen.js, the script the app
// serves, to the vendored bundle app-with-deps.js (checked against its
// hash by TestExtAppsVendored): go generate (this test with -update)
// writes it when the bundle is vendored, so nothing rewrites the bundle
// at run time.
func TestExtAppsScript(t *testing.T) {
	bundle, err := os.ReadFile("app/ext-apps/app-with-deps.js")
	if err != nil {
		t.Fatal(err)
	}
	script, err := extAppsModule(string(bundle))
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "app/ext-apps/script.gen.js", []byte(script))
}

// exportPair is one "local as Exported" of the bundle's export clause.
var exportPair = regexp.MustCompile(`^\s*([A-Za-z_$][\w$]*)\s+as\s+([A-Za-z_$][\w$]*)\s*$`)

// extAppsModule turns the SDK's ES module bundle into a script whose
// exports App and PostMessageTransport are the object ExtApps: its final
// export clause becomes that object.
func extAppsModule(bundle string) (string, error) {
	i := strings.LastIndex(bundle, "export{")
	if i < 0 {
		return "", fmt.Errorf("the ext-apps bundle has no export clause")
	}
	end := strings.Index(bundle[i:], "}")
	names := map[string]string{}
	for _, p := range strings.Split(bundle[i+len("export{"):i+end], ",") {
		if m := exportPair.FindStringSubmatch(p); m != nil {
			names[m[2]] = m[1]
		}
	}
	app, transport := names["App"], names["PostMessageTransport"]
	if app == "" || transport == "" {
		return "", fmt.Errorf("the ext-apps bundle exports no App or PostMessageTransport")
	}
	return bundle[:i] + fmt.Sprintf("const ExtApps={App:%s,PostMessageTransport:%s};", app, transport) + bundle[i+end+1:], nil
}
