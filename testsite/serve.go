package testsite

import (
	"context"
	"crypto/ed25519"
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
	site.printReady(o.Ready, shownCA, o.Credential, o.Self)
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

// printReady prints the flags and the lines to paste: each ready line
// starts with its role and a colon ("mcp: ", "check: "), so a script can
// take it with one grep. credential is empty when the site trusts only the
// keys it was given: the mcp line then needs the agent's own command.
// caFile is as the shell should read it (quoted).
func (s *Site) printReady(w io.Writer, caFile, credential, self string) {
	_, port, _ := net.SplitHostPort(s.Addr())
	reach := []string{"--ca-file", caFile}
	for _, h := range Hosts() {
		reach = append(reach, "--resolve", h+"=127.0.0.1:"+port)
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
	if credential == "" {
		credential = "YOUR-AGENT-CREDENTIAL-COMMAND"
	}
	fmt.Fprintf(w, "mcp: %s mcp --company https://%s/ --assertion-cmd %s %s\n",
		self, CompanyDomain, cli.ShellQuote(credential), strings.Join(reach, " "))
	fmt.Fprintf(w, "check: %s check %s %s\n", self, strings.Join(reach, " "), CheckInURL())
}
