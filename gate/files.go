package gate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/poppy-browser/poppy-browser/audit"
	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/internal/pagetext"
)

// chosenFiles is the line of a look that says which files the User chose
// for the page in their turn: its label, the file's name and size, never
// its bytes (the agent never holds them). "" when none.
func chosenFiles(files []ChosenFile) string {
	if len(files) == 0 {
		return ""
	}
	var b strings.Builder
	for _, f := range files {
		label := ""
		if f.Label != "" {
			label = " for " + quote(pagetext.Line(f.Label))
		}
		fmt.Fprintf(&b, "A file was chosen by the User%s: %s (%d bytes); its content stays with the page.\n", label, quote(pagetext.Line(f.Name)), f.Size)
	}
	return b.String()
}

// agentDownloadMax bounds a download saved for the agent
// (--downloads-for-agent).
const agentDownloadMax = 20 << 20

// downloadSource is the part of a surface that can fetch the bytes of
// the tab's last download (the real page: browser.Page.FetchDownload).
type downloadSource interface {
	lastDownload(ctx context.Context, max int) (browser.Download, []byte, error)
}

func (s *pageSurface) lastDownload(ctx context.Context, max int) (browser.Download, []byte, error) {
	ds := s.p.Downloads()
	if len(ds) == 0 {
		return browser.Download{}, nil, errors.New("no download")
	}
	d := ds[len(ds)-1]
	data, _, err := s.p.FetchDownload(ctx, d, max)
	return d, data, err
}

// saveForAgent saves the tab's last download in the operator's
// --downloads-for-agent folder (the bytes fetched through the browser, so
// a pool's browser works too) and says where, for the result's message;
// or why it is not saved. A new file each time (never over another, never
// through a symbolic link), mode 0600; the audit log gets its name, size
// and SHA-256.
func (r *run) saveForAgent(ctx context.Context, res *Result) string {
	src, ok := r.tabs.(downloadSource)
	if !ok {
		return ""
	}
	d, data, err := src.lastDownload(ctx, agentDownloadMax)
	switch {
	case errors.Is(err, browser.ErrDownloadTooBig):
		return fmt.Sprintf(" The page started a download (%q) over %d MB: not saved for the agent.", d.Filename, agentDownloadMax>>20)
	case err != nil:
		r.g.log.Debug("download for the agent not fetched", "err", err)
		return fmt.Sprintf(" The page started a download (%q) that the browser could not fetch again: not saved.", d.Filename)
	}
	name, err := saveNew(r.g.saveTo, d.SaveName(), data)
	if err != nil {
		r.g.log.Warn("download for the agent not saved", "err", err)
		return fmt.Sprintf(" The page started a download (%q) that could not be saved in the downloads folder.", d.Filename)
	}
	sum := sha256.Sum256(data)
	if err := r.g.audit.Record(audit.Entry{Event: audit.EventFile, How: audit.FileDownloaded, By: audit.ByAgent,
		URL: withoutQuery(res.Page.URL), File: &audit.File{Name: name, Size: len(data), SHA256: hex.EncodeToString(sum[:])}}); err != nil {
		r.g.log.Error("audit record failed", "event", audit.EventFile, "err", err)
	}
	return fmt.Sprintf(" The page's download was saved for you as %q (%d bytes) in the downloads folder (--downloads-for-agent).", filepath.Join(r.g.saveTo, name), len(data))
}

// saveNew writes data to a new file in dir named name, or "name (2).ext"
// and so on when it is taken, inside dir only; it returns the name used.
func saveNew(dir, name string, data []byte) (string, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return "", err
	}
	defer root.Close()
	ext := filepath.Ext(name)
	base := strings.TrimSuffix(name, ext)
	for i := 1; i <= 100; i++ {
		try := name
		if i > 1 {
			try = fmt.Sprintf("%s (%d)%s", base, i, ext)
		}
		f, err := root.OpenFile(try, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		_, werr := f.Write(data)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			_ = root.Remove(try)
			return "", werr
		}
		return try, nil
	}
	return "", fmt.Errorf("%d files named like %q already", 100, name)
}
