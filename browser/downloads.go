package browser

import (
	"context"
	_ "embed"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"path"
	"strconv"
	"strings"
	"unicode"
)

// A download is refused by the browser (nothing is written to any disk:
// the browser may be on another machine), and recorded on its tab. For
// the User's turn, [Page.FetchDownload] gets its bytes through the browser
// instead: fetched again in the frame that started it, so the bytes come
// over CDP whether the browser was launched or attached from a pool.

//go:embed js/fetchdownload.js
var fetchDownloadJS string

//go:embed js/readdownload.js
var readDownloadJS string

// ErrDownloadTooBig: the download is over the bound FetchDownload was given.
var ErrDownloadTooBig = errors.New("the download is over the size bound")

// downloadRead is how many bytes one read of a fetched download carries
// over CDP.
const downloadRead = 1 << 20

// FetchDownload fetches the bytes of download d (one of [Page.Downloads])
// in the frame that started it, with that frame's cookies, at most max
// bytes; it returns them and their MIME type.
func (p *Page) FetchDownload(ctx context.Context, d Download, max int) ([]byte, string, error) {
	f, ok := p.frame(d.Frame)
	if !ok {
		return nil, "", fmt.Errorf("%w: the frame that started the download", ErrFrameGone)
	}
	key := "d" + strconv.FormatUint(p.b.getterCalls.Add(1), 10)
	var meta struct {
		Size int
		Type string
	}
	if err := f.Call(ctx, UtilityWorld, fetchDownloadJS, &meta, d.URL, max, key); err != nil {
		if strings.Contains(err.Error(), "too big") {
			return nil, "", ErrDownloadTooBig
		}
		return nil, "", fmt.Errorf("fetching the download: %w", err)
	}
	if meta.Size > max {
		return nil, "", ErrDownloadTooBig
	}
	data := make([]byte, 0, meta.Size)
	for at := 0; at < meta.Size; at += downloadRead {
		var part string
		if err := f.Call(ctx, UtilityWorld, readDownloadJS, &part, key, at, downloadRead); err != nil {
			return nil, "", fmt.Errorf("reading the download: %w", err)
		}
		b, err := base64.StdEncoding.DecodeString(part)
		if err != nil {
			return nil, "", fmt.Errorf("reading the download: %w", err)
		}
		data = append(data, b...)
	}
	if len(data) != meta.Size {
		return nil, "", fmt.Errorf("reading the download: %d bytes of %d", len(data), meta.Size)
	}
	return data, meta.Type, nil
}

// SaveName is the name to save d under: the page's suggestion, else the
// last part of its address, without a folder or a control character,
// "download" when nothing of a name is left.
func (d Download) SaveName() string {
	name := d.Filename
	if name == "" {
		if u, err := url.Parse(d.URL); err == nil {
			name = path.Base(u.Path)
		}
	}
	name = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '/' || r == '\\' {
			return '_'
		}
		return r
	}, name)
	if strings.Trim(name, "_. ") == "" {
		return "download" // nothing of a name: "/", "..", blanks
	}
	if len(name) > 200 {
		name = name[len(name)-200:]
	}
	return name
}

// frame finds one of the page's frames by its ID.
func (p *Page) frame(id FrameID) (Frame, bool) {
	for _, f := range p.Frames() {
		if f.ID == id {
			return f, true
		}
	}
	return Frame{}, false
}
