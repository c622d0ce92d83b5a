package ui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/poppy-browser/poppy-browser/internal/cli"
	"github.com/poppy-browser/poppy-browser/presence"
)

// RunPair runs the pair subcommand of poppy-browser: it pairs one of the User's devices (a passkey), run in the User's
// own terminal: the one-time, short-lived pairing link is printed here
// only. --list and --revoke ID manage the paired devices.
func RunPair(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("pair", "pair [--list | --revoke ID] [--subject SUB] [--passkeys FILE] [--ttl DURATION]", stderr)
	var path string
	presence.RegisterFlag(fs, &path)
	list := fs.Bool("list", false, "list the paired devices")
	revoke := fs.String("revoke", "", "forget the paired device with this id: it takes control no more")
	ttl := fs.Duration("ttl", DefaultPairTTL, "how long the pairing link works")
	subject := fs.String("subject", "", "pair (or --list) the devices of this User of an `mcp --http --auth-issuer` service: the sub of their OAuth tokens; their devices take only their sessions (default: the runtime's own User)")
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	switch {
	case fs.NArg() != 0:
		return cli.UsageErrorf("pair: no arguments expected, got %q", fs.Arg(0))
	case path == "":
		return cli.UsageErrorf("pair: no passkey store (--passkeys FILE)")
	case *list && *revoke != "":
		return cli.UsageErrorf("pair: --list and --revoke go alone")
	case *ttl <= 0 || *ttl > time.Hour:
		return cli.UsageErrorf("pair: --ttl must be between 0 and 1h, got %s", *ttl)
	}
	store := presence.NewStore(path)
	if *subject != "" {
		store = store.ForSubject(SubjectHash(*subject))
	}
	switch {
	case *list:
		devs, err := store.List()
		if err != nil {
			return fmt.Errorf("pair: %w", err)
		}
		if len(devs) == 0 {
			fmt.Fprintln(stdout, "no device is paired (run poppy-browser pair)")
			return nil
		}
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tNAME\tFOR\tPAIRED")
		for _, d := range devs {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", d.ID, d.Name, d.RPID, d.Added.Format(time.RFC3339))
		}
		return tw.Flush()
	case *revoke != "":
		if err := store.Revoke(*revoke); err != nil {
			return fmt.Errorf("pair: %w", err)
		}
		fmt.Fprintf(stdout, "revoked %s: it proves nothing from now on\n", *revoke)
		return nil
	}
	srv, err := NewPairServer(store, *ttl)
	if err != nil {
		return fmt.Errorf("pair: %w", err)
	}
	defer srv.Close()
	link := srv.Link()
	fmt.Fprintf(stdout, "Open this link in a browser on this computer to pair a passkey (it works once, until %s):\n\n  %s\n\n",
		link.Expires.Local().Format("15:04"), link.URL)
	fmt.Fprintln(stdout, "Your device will ask for your fingerprint, face or PIN. Waiting…")
	d, err := srv.Wait(ctx)
	if errors.Is(err, ErrPairExpired) {
		return errors.New("pair: the link expired with no device paired; run poppy-browser pair again")
	}
	if err != nil {
		return fmt.Errorf("pair: %w", err)
	}
	name := d.Name
	if name == "" {
		name = "(no name)"
	}
	fmt.Fprintf(stdout, "paired %s %s: it proves it's you when you take control\n", d.ID, name)
	return nil
}
