package devsite

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/poppy-browser/poppy-browser/internal/cli"
	"github.com/poppy-browser/poppy-browser/session"
	"github.com/poppy-browser/poppy-browser/testsite"
)

// RunDevCredential runs the dev-credential subcommand of poppy-browser: it
// prints a join credential signed by the development
// agent key, for the request the runtime hands a credential command in its
// environment (POPPY_ENDPOINT, POPPY_RETURN_TO), or the key's public half.
func RunDevCredential(ctx context.Context, args []string, stdout, stderr io.Writer) error {
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
	req := session.RequestFromEnv(*endpoint, *returnTo, os.Getenv)
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

// RunTestsite runs the testsite subcommand of poppy-browser: it serves the
// demo Company until ctx ends.
func RunTestsite(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("testsite", "testsite [--addr ADDR] [--trust-key FILE]... [--ca-out FILE]", stderr)
	o := testsite.ServeOptions{Ready: stdout, Logger: slog.New(slog.NewTextHandler(stderr, nil)), Self: cli.Self()}
	if exe, err := os.Executable(); err == nil {
		o.Executable = exe
	}
	fs.StringVar(&o.Addr, "addr", "127.0.0.1:8443", "listen address (keep it on loopback)")
	var trustKeys cli.StringList
	fs.Var(&trustKeys, "trust-key", "accept join credentials signed by this agent key (PEM public key, repeatable; default: the development key of dev-credential, made when missing)")
	fs.StringVar(&o.CAFile, "ca-out", "", "write the site's CA (PEM) to this file, for --ca-file (default: poppy-browser/testsite-ca.pem in your config directory)")
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.UsageErrorf("testsite: unexpected argument %q (see poppy-browser testsite --help)", fs.Arg(0))
	}
	keys, devKey, err := session.TrustedKeys(trustKeys)
	if err != nil {
		return fmt.Errorf("testsite: %w", err)
	}
	o.TrustedKeys = keys
	if devKey != "" {
		// The development key sits where dev-credential looks by default,
		// so the line reads as README's client entry does.
		o.Credential = o.Self + " dev-credential"
	}
	if err := testsite.Serve(ctx, &o); err != nil {
		return fmt.Errorf("testsite: %w", err)
	}
	return nil
}
