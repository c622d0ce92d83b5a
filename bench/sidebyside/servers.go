package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/agent"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// poppyServer runs `poppy-browser mcp --no-join` for the demo airline,
// launching its own Chromium, as a Company developer would. It writes the
// live view's address to liveURLFile, where the check-in task's User finds
// it. The User's paired passkeys are in passkeys (the take needs one).
func poppyServer(bin, chromium string, browserArgs []string, liveURLFile, passkeys string) server {
	return server{
		name:          "poppy-browser",
		navigateShows: true,
		cmd: func() *exec.Cmd {
			args := []string{"mcp", "--no-join", "--company", testsite.CompanyDomain, "--chromium", chromium, "--live-url-file", liveURLFile,
				"--passkeys", passkeys} // the scripted User proves presence with the passkey paired there (userDevice)
			for _, a := range browserArgs {
				args = append(args, "--browser-arg", a)
			}
			return exec.Command(bin, args...)
		},
		snapshotText: func(res *mcp.CallToolResult) string {
			// The text the model reads: structuredContent.text when the
			// result carries it, else the text content.
			if m, ok := structured(res)["text"].(string); ok && m != "" {
				return m
			}
			return firstText(res)
		},
		refOf: func(res *mcp.CallToolResult, role, name string) string {
			// The page as the scripted model reads it, the name exactly.
			for _, e := range agent.ParsePage(firstText(res)).Elements {
				if e.Ref != "" && e.Role == role && e.Name == name {
					return e.Ref
				}
			}
			return ""
		},
		clickArgs:   func(ref, _ string) map[string]any { return map[string]any{"ref": ref} },
		wholePage:   poppyWholePage,
		wholeArgs:   map[string]any{"since": 0},
		showsPage:   poppyShowsPage,
		selectTool:  "browser_select",
		liveURLFile: liveURLFile,
	}
}

// playwrightServer runs @playwright/mcp with the same Chromium, headless,
// in an isolated profile, with the same host mapping and certificate pin.
func playwrightServer(cli, chromium string, browserArgs []string) (server, func(), error) {
	dir, err := os.MkdirTemp("", "sidebyside-playwright-")
	if err != nil {
		return server{}, nil, err
	}
	cfg := map[string]any{
		"browser": map[string]any{
			"browserName": "chromium",
			"isolated":    true,
			"launchOptions": map[string]any{
				"executablePath": chromium,
				"headless":       true,
				"args":           browserArgs,
			},
		},
		"outputDir": filepath.Join(dir, "out"),
	}
	b, _ := json.Marshal(cfg)
	cfgPath := filepath.Join(dir, "config.json")
	if err := os.WriteFile(cfgPath, b, 0o600); err != nil {
		return server{}, nil, err
	}
	s := server{
		name: "Playwright MCP",
		cmd: func() *exec.Cmd {
			c := exec.Command("node", cli, "--config", cfgPath)
			c.Dir = dir
			return c
		},
		snapshotText: firstText,
		evaluates:    true,
		refOf: func(res *mcp.CallToolResult, role, name string) string {
			// `- ROLE "NAME" [ref=e12]`, the name exactly.
			re := regexp.MustCompile(`- ` + regexp.QuoteMeta(role) + ` "` + regexp.QuoteMeta(name) + `"[^\n]*?\[ref=([A-Za-z0-9]+)\]`)
			if m := re.FindStringSubmatch(firstText(res)); m != nil {
				return m[1]
			}
			return ""
		},
		// Playwright MCP names the ref "target" and asks for a description too.
		clickArgs:  func(ref, name string) map[string]any { return map[string]any{"target": ref, "element": name} },
		selectTool: "browser_select_option",
		// Every result that shows the page shows its whole snapshot.
		wholePage: func(res *mcp.CallToolResult) bool { return strings.Contains(firstText(res), "```yaml") },
		showsPage: func(res *mcp.CallToolResult) bool { return strings.Contains(firstText(res), "```yaml") },
	}
	return s, func() { os.RemoveAll(dir) }, nil
}

func structured(res *mcp.CallToolResult) map[string]any {
	m, _ := res.StructuredContent.(map[string]any)
	if m != nil {
		return m
	}
	// Some transports leave it as raw JSON.
	var out map[string]any
	if b, err := json.Marshal(res.StructuredContent); err == nil {
		json.Unmarshal(b, &out)
	}
	return out
}

// treeRSS sums VmRSS (KiB) over pid and every process below it.
func treeRSS(pid int) int {
	children := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// The command name may hold spaces: fields start after the last ')'.
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		children[ppid] = append(children[ppid], p)
	}
	total := 0
	var walk func(int)
	walk = func(p int) {
		total += rss(p)
		for _, c := range children[p] {
			walk(c)
		}
	}
	walk(pid)
	return total
}

func rss(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return n
		}
	}
	return 0
}
