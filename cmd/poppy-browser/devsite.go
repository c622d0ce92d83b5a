package main

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/poppy-browser/poppy-browser/internal/cli"
	"github.com/poppy-browser/poppy-browser/session"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// runDevCredential prints a join credential signed by the development
// agent key, for the request the runtime hands a credential command in its
// environment (POPPY_ENDPOINT, POPPY_RETURN_TO), or the key's public half.
func runDevCredential(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("dev-credential", "dev-credential [--key FILE] [--public]\n\n"+
		"Signs a browser-join credential as a development Personal Agent, for --assertion-cmd:\n"+
		"  poppy-browser mcp --company https://airline.test/ --assertion-cmd 'poppy-browser dev-credential'\n"+
		"The key is made on first use (mode 0600). Only a Company that trusts it (the testsite) accepts it.", stderr)
	defaultKey, keyErr := session.DefaultDevKeyPath()
	keyFile := fs.String("key", defaultKey, "the development key (Ed25519, PEM); made when missing")
	public := fs.Bool("public", false, "print the key's public half (PEM), for a Company to trust, instead of a credential")
	endpoint := fs.String("endpoint", "", "the join endpoint the credential is for (default $POPPY_ENDPOINT, set by the runtime)")
	returnTo := fs.String("return-to", "", "where the join lands (default $POPPY_RETURN_TO, set by the runtime)")
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.UsageErrorf("dev-credential: unexpected argument %q (see poppy-browser dev-credential --help)", fs.Arg(0))
	}
	if *keyFile == "" {
		return fmt.Errorf("dev-credential: no --key and no config directory (%v)", keyErr)
	}
	key, err := session.LoadOrCreateDevKey(*keyFile)
	if err != nil {
		return fmt.Errorf("dev-credential: %w", err)
	}
	if *public {
		_, err := stdout.Write(session.MarshalPublicKey(key.Public().(ed25519.PublicKey)))
		return err
	}
	req := session.CredentialRequest{Endpoint: *endpoint, ReturnTo: *returnTo, Domain: os.Getenv("POPPY_DOMAIN")}
	if req.Endpoint == "" {
		req.Endpoint = os.Getenv("POPPY_ENDPOINT")
	}
	if req.ReturnTo == "" {
		req.ReturnTo = os.Getenv("POPPY_RETURN_TO")
	}
	if req.Endpoint == "" {
		return cli.UsageErrorf("dev-credential: no endpoint: run it as --assertion-cmd, or give --endpoint")
	}
	cred, err := session.DevSigner(key).Credential(ctx, req)
	if err != nil {
		return fmt.Errorf("dev-credential: %w", err)
	}
	_, err = fmt.Fprintln(stdout, cred.Reveal())
	return err
}

func runTestsite(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("testsite", "testsite [--addr ADDR] [--trust-key FILE]... [--ca-out FILE]", stderr)
	addr := fs.String("addr", "127.0.0.1:8443", "listen address (keep it on loopback)")
	var trustKeys cli.StringList
	fs.Var(&trustKeys, "trust-key", "accept join credentials signed by this agent key (PEM public key, repeatable; default: the development key of dev-credential, made when missing)")
	caOut := fs.String("ca-out", "", "write the site's CA (PEM) to this file, for --ca-file (default: poppy-browser/testsite-ca.pem in your config directory)")
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.UsageErrorf("testsite: unexpected argument %q (see poppy-browser testsite --help)", fs.Arg(0))
	}
	keys, devKey, err := trustedKeys(trustKeys)
	if err != nil {
		return fmt.Errorf("testsite: %w", err)
	}
	if *caOut == "" {
		dir, err := os.UserConfigDir()
		if err != nil {
			return fmt.Errorf("testsite: no --ca-out and no config directory: %w", err)
		}
		*caOut = filepath.Join(dir, "poppy-browser", "testsite-ca.pem")
	}
	site, err := testsite.New(&testsite.Options{TrustedKeys: keys, Logger: slog.New(slog.NewTextHandler(stderr, nil))})
	if err != nil {
		return err
	}
	if err := writeCA(*caOut, site.CAPEM()); err != nil {
		return fmt.Errorf("testsite: %w", err)
	}
	if err := site.Start(*addr); err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return fmt.Errorf("testsite: %s is in use: choose another with --addr (such as --addr 127.0.0.1:0)", *addr)
		}
		return err
	}
	defer site.Close()
	printReady(stdout, site, *caOut, devKey)
	<-ctx.Done()
	return nil
}

// trustedKeys reads the --trust-key files, or makes or reads the
// development key when there are none (its path is returned, for the mcp
// line's --assertion-cmd).
func trustedKeys(files []string) (keys []ed25519.PublicKey, devKey string, err error) {
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, "", fmt.Errorf("--trust-key: %w", err)
		}
		pub, err := session.ParsePublicKey(b)
		if err != nil {
			return nil, "", fmt.Errorf("--trust-key %s: %w", f, err)
		}
		keys = append(keys, pub)
	}
	if len(keys) > 0 {
		return keys, "", nil
	}
	devKey, err = session.DefaultDevKeyPath()
	if err != nil {
		return nil, "", err
	}
	key, err := session.LoadOrCreateDevKey(devKey)
	if err != nil {
		return nil, "", err
	}
	return []ed25519.PublicKey{key.Public().(ed25519.PublicKey)}, devKey, nil
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
// take it with one grep. devKey is empty when the site trusts only the
// keys it was given: the mcp line then needs the agent's own command.
func printReady(w io.Writer, site *testsite.Site, caFile, devKey string) {
	_, port, _ := net.SplitHostPort(site.Addr())
	exe := selfCommand()
	reach := []string{"--ca-file", shellQuote(caFile)}
	for _, h := range testsite.Hosts() {
		reach = append(reach, "--resolve", h+"=127.0.0.1:"+port)
	}
	fmt.Fprintf(w, "demo airline on https://%s (hosts %s)\n", site.Addr(), strings.Join(testsite.Hosts(), ", "))
	fmt.Fprintln(w, "a Chromium of your own reaches it with these flags:")
	for _, a := range site.BrowserArgs() {
		fmt.Fprintf(w, "  %s\n", shellQuote(a))
	}
	fmt.Fprintln(w, "pages:")
	for _, l := range testsite.Directory() {
		fmt.Fprintf(w, "  %-7s %-32s %s\n", l.Group, l.Name, l.URL)
	}
	fmt.Fprintln(w, "ready lines (paste the part after the colon):")
	assertion := "YOUR-AGENT-CREDENTIAL-COMMAND"
	if devKey != "" {
		assertion = exe + " dev-credential --key " + shellQuote(devKey)
	}
	fmt.Fprintf(w, "mcp: %s mcp --company https://%s/ --assertion-cmd %s %s\n",
		exe, testsite.CompanyDomain, shellQuote(assertion), strings.Join(reach, " "))
	fmt.Fprintf(w, "check: %s check %s %s\n", exe, strings.Join(reach, " "), testsite.CheckInURL())
}

// selfCommand is how a shell reaches this program: "poppy-browser" when
// that is what PATH finds, otherwise its absolute path.
func selfCommand() string {
	self, err := os.Executable()
	if err != nil {
		return "poppy-browser"
	}
	if onPath, err := exec.LookPath("poppy-browser"); err == nil {
		a, errA := os.Stat(onPath)
		b, errB := os.Stat(self)
		if errA == nil && errB == nil && os.SameFile(a, b) {
			return "poppy-browser"
		}
	}
	return shellQuote(self)
}

// shellQuote quotes s for sh when it holds anything but safe characters.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=,@+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
