package desktop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/poppy-browser/poppy-browser/internal/cli"
)

// RunLiveLink is the live-link subcommand: it asks the running runtime's
// live view (by its URL file, the per-run token never on a command line)
// for a single-use link without an offer, for a User who wants in, and
// prints it with its expiry.
func RunLiveLink(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	const synopsis = "live-link [--live-url-file FILE] [--read-only] [--live-identity-header NAME --live-identity-file FILE]"
	fs := cli.NewFlagSet("live-link", synopsis, stderr)
	file := fs.String("live-url-file", DefaultURLFile(), "the live view URL file the runtime wrote")
	readOnly := fs.Bool("read-only", false, "a link that only watches (never takes control)")
	var id Identity
	fs.StringVar(&id.Header, "live-identity-header", "", "NAME: send the User's signed identity in this header, when the runtime runs with --live-identity-header")
	fs.StringVar(&id.File, "live-identity-file", "", "FILE holding the User's signed identity (a JWT from the operator's identity provider) for --live-identity-header")
	cli.Removed(fs, "live-user-header", "use --live-identity-header NAME --live-identity-file FILE (the User's signed identity)")
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return cli.UsageErrorf("live-link: takes no arguments (poppy-browser %s)", synopsis)
	}
	if (id.Header == "") != (id.File == "") {
		return cli.UsageErrorf("live-link: --live-identity-header and --live-identity-file go together")
	}
	link, expires, err := MintLiveLink(ctx, *file, *readOnly, &id)
	if err != nil {
		return fmt.Errorf("live-link: %w", err)
	}
	fmt.Fprintf(stdout, "%s\n", link)
	fmt.Fprintf(stderr, "works once, until %s\n", expires.Local().Format(time.TimeOnly))
	return nil
}

// Identity is the User's signed identity that live-link sends, when the
// runtime's live view needs one (--live-identity-header): the JWT in File
// (never on a command line), in the header Header. The zero Identity
// sends none.
type Identity struct{ Header, File string }

// MintLiveLink asks the live view whose URL is in urlFile for a link,
// with the User's signed identity when id names one (nil sends none).
func MintLiveLink(ctx context.Context, urlFile string, readOnly bool, id *Identity) (string, time.Time, error) {
	b, err := os.ReadFile(urlFile)
	if err != nil {
		return "", time.Time{}, fmt.Errorf("%w (is the agent's poppy-browser running?)", err)
	}
	u, err := parseLiveURL(strings.TrimSpace(string(b)))
	if err != nil {
		return "", time.Time{}, fmt.Errorf("%s: %w", urlFile, err)
	}
	u.Path = "/live/links"
	if readOnly {
		q := u.Query()
		q.Set("read_only", "1")
		u.RawQuery = q.Encode()
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), nil)
	if err != nil {
		return "", time.Time{}, errors.New("bad live view url")
	}
	if id != nil && id.Header != "" {
		tok, err := os.ReadFile(id.File)
		if err != nil {
			return "", time.Time{}, fmt.Errorf("reading --live-identity-file: %w", err)
		}
		v := strings.TrimSpace(string(tok))
		if v == "" || strings.ContainsAny(v, "\r\n") || strings.ContainsAny(id.Header, " \t:\r\n") {
			return "", time.Time{}, errors.New("--live-identity-file must hold one JWT, and --live-identity-header a header name")
		}
		req.Header.Set(id.Header, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		// The error names the URL, token included: say only where.
		return "", time.Time{}, fmt.Errorf("nothing answers at %s (is the agent's poppy-browser running?)", u.Host)
	}
	defer resp.Body.Close()
	var out struct {
		Link    string    `json:"link"`
		Expires time.Time `json:"expires"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(io.LimitReader(resp.Body, 4096)).Decode(&out) != nil || out.Link == "" {
		return "", time.Time{}, fmt.Errorf("the live view at %s refused: %s", u.Host, resp.Status)
	}
	return out.Link, out.Expires, nil
}
