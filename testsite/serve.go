package testsite

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/poppy-browser/poppy-browser/internal/cli"
)

// ServeOptions are what `poppy-browser testsite` serves and prints.
type ServeOptions struct {
	// Addr is the listen address; keep it on loopback.
	Addr string
	// TrustedKeys are the agent keys whose join credentials the site
	// accepts.
	TrustedKeys []ed25519.PublicKey
	// CAFile is where the site's CA (PEM) is written, for --ca-file; empty:
	// poppy-browser/testsite-ca.pem in the User's config directory.
	CAFile string
	// Credential is the command line the ready mcp line gives as
	// --assertion-cmd (unquoted); empty: a placeholder for the agent's own.
	Credential string
	// Self is how a shell reaches poppy-browser (see cli.Self).
	Self string
	// Executable is poppy-browser's absolute path, for the JSON entry an
	// MCP client runs without a shell or a PATH (empty: Self).
	Executable string
	// Ready receives the flags, the pages and the ready lines; Logger the
	// site's log (nil: none).
	Ready  io.Writer
	Logger *slog.Logger
}

// Serve serves the demo airline until ctx ends: it writes its CA, starts,
// and prints to o.Ready the Chromium flags that reach it, its pages and
// the lines to paste.
func Serve(ctx context.Context, o *ServeOptions) error {
	caFile := o.CAFile
	if caFile == "" {
		dir, err := os.UserConfigDir()
		if err != nil {
			return fmt.Errorf("no --ca-out and no config directory: %w", err)
		}
		caFile = filepath.Join(dir, "poppy-browser", "testsite-ca.pem")
	}
	site, err := New(&Options{TrustedKeys: o.TrustedKeys, Logger: o.Logger})
	if err != nil {
		return err
	}
	if err := writeCA(caFile, site.CAPEM()); err != nil {
		return err
	}
	if err := site.Start(o.Addr); err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return fmt.Errorf("%s is in use: choose another with --addr (such as --addr 127.0.0.1:0)", o.Addr)
		}
		return err
	}
	defer site.Close()
	shownCA := cli.ShellQuote(caFile)
	if o.CAFile == "" {
		// The default place, named the way README's client entries name
		// it, so the line works as pasted on any OS.
		shownCA = `"$(` + cli.ShellQuote(o.Self) + ` config-path --file testsite-ca.pem)"`
	}
	absCA, err := filepath.Abs(caFile)
	if err != nil {
		return err
	}
	site.printReady(o.Ready, readyLines{caShell: shownCA, caAbs: absCA, credential: o.Credential, self: o.Self, exe: o.Executable})
	<-ctx.Done()
	return nil
}

// writeCA writes the CA to path without ever following a symbolic link
// there: a link (even a dangling one) or anything but a regular file is
// refused, and the CA goes to a new temporary file beside it (created
// with O_CREATE|O_EXCL, which never follows a link), renamed over path
// (a rename replaces the name itself, never a link's target), so a link
// put there after the check is replaced, not written through.
func writeCA(path string, pemBytes []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("writing the CA: %w", err)
	}
	if fi, err := os.Lstat(path); err == nil {
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			return fmt.Errorf("--ca-out %s is a symbolic link, which is not followed: give the path of a regular file", path)
		case !fi.Mode().IsRegular():
			return fmt.Errorf("--ca-out %s is not a regular file", path)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("writing the CA: %w", err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("writing the CA: %w", err)
	}
	defer os.Remove(tmp.Name()) // after the rename, there is nothing to remove
	_, err = tmp.Write(pemBytes)
	if err == nil {
		err = tmp.Chmod(0o644) // a CA certificate is public
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("writing the CA: %w", err)
	}
	return nil
}

// readyLines is what the lines to paste are made of.
type readyLines struct {
	caShell    string // the CA file as a shell should read it (quoted)
	caAbs      string // the CA file's absolute path, for the JSON entry
	credential string // --assertion-cmd (unquoted), self-based; empty: a placeholder
	self       string // how a shell reaches poppy-browser
	exe        string // poppy-browser's absolute path; empty: self
}

// DemoHTTPAddr is the address the mcp-http: line serves MCP on, as
// README's HTTP entry for the demo airline says.
const DemoHTTPAddr = "127.0.0.1:8931"

// printReady prints the flags and the lines to paste: each ready line
// starts with its role and a colon ("mcp: ", "mcp-json: ", "mcp-http: ",
// "check: "), so a script can take it with one grep. The credential is
// empty when the site trusts only the keys it was given: the mcp lines
// then need the agent's own command.
func (s *Site) printReady(w io.Writer, r readyLines) {
	_, port, _ := net.SplitHostPort(s.Addr())
	var resolve []string
	for _, h := range Hosts() {
		resolve = append(resolve, "--resolve", h+"=127.0.0.1:"+port)
	}
	fmt.Fprintf(w, "demo airline on https://%s (hosts %s)\n", s.Addr(), strings.Join(Hosts(), ", "))
	fmt.Fprintln(w, "a Chromium of your own reaches it with these flags:")
	for _, a := range s.BrowserArgs() {
		fmt.Fprintf(w, "  %s\n", cli.ShellQuote(a))
	}
	fmt.Fprintln(w, "pages:")
	for _, l := range Directory() {
		fmt.Fprintf(w, "  %-7s %-32s %s\n", l.Group, l.Name, l.URL)
	}
	fmt.Fprintln(w, "ready lines (paste the part after the colon):")
	credential := r.credential
	if credential == "" {
		credential = "YOUR-AGENT-CREDENTIAL-COMMAND"
	}
	reach := strings.Join(append([]string{"--ca-file", r.caShell}, resolve...), " ")
	mcpLine := fmt.Sprintf("%s mcp --company https://%s/ --assertion-cmd %s %s", r.self, CompanyDomain, cli.ShellQuote(credential), reach)
	fmt.Fprintf(w, "mcp: %s\n", mcpLine)
	fmt.Fprintf(w, "mcp-json: %s\n", r.clientEntry(credential, resolve))
	fmt.Fprintf(w, "mcp-http: %s --http %s\n", mcpLine, DemoHTTPAddr)
	fmt.Fprintf(w, "check: %s check %s %s\n", r.self, reach, CheckInURL())
}

// clientEntry is the mcp: line as an MCP client's mcpServers entry: the
// command and every path absolute, the arguments a JSON array, as a
// client runs it (no shell, no PATH). The credential command stays one
// string: the runtime runs --assertion-cmd with sh.
func (r readyLines) clientEntry(credential string, resolve []string) string {
	exe := r.exe
	if exe == "" {
		exe = r.self
	}
	if rest, ok := strings.CutPrefix(credential, r.self+" "); ok {
		credential = cli.ShellQuote(exe) + " " + rest
	}
	args := append([]string{"mcp", "--company", "https://" + CompanyDomain + "/",
		"--assertion-cmd", credential, "--ca-file", r.caAbs}, resolve...)
	type server struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // "&" and "<" stay readable in a path
	if err := enc.Encode(map[string]map[string]server{"mcpServers": {"poppy-airline": {exe, args}}}); err != nil {
		panic(err) // strings only: cannot fail
	}
	return strings.TrimSpace(b.String())
}
