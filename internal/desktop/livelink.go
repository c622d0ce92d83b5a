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
	fs := cli.NewFlagSet("live-link", "live-link [--live-url-file FILE] [--read-only] [--live-user-header NAME=VALUE]", stderr)
	file := fs.String("live-url-file", DefaultURLFile(), "the live view URL file the runtime wrote")
	readOnly := fs.Bool("read-only", false, "a link that only watches (never takes control)")
	header := fs.String("live-user-header", "", "NAME=VALUE: send this header, when the runtime runs with --live-user-header")
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return cli.UsageErrorf("live-link: takes no arguments (poppy-browser live-link [--live-url-file FILE] [--read-only] [--live-user-header NAME=VALUE])")
	}
	link, expires, err := MintLiveLink(ctx, *file, *readOnly, *header)
	if err != nil {
		return fmt.Errorf("live-link: %w", err)
	}
	fmt.Fprintf(stdout, "%s\n", link)
	fmt.Fprintf(stderr, "works once, until %s\n", expires.Local().Format(time.TimeOnly))
	return nil
}

// MintLiveLink asks the live view whose URL is in urlFile for a link;
// header, "NAME=VALUE" or "", is sent with the request (--live-user-header).
func MintLiveLink(ctx context.Context, urlFile string, readOnly bool, header string) (string, time.Time, error) {
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
	if name, value, ok := strings.Cut(header, "="); ok && name != "" {
		req.Header.Set(strings.TrimSpace(name), value)
	} else if header != "" {
		return "", time.Time{}, errors.New("--live-user-header must be NAME=VALUE")
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
