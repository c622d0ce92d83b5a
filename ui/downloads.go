package ui

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/poppy-browser/poppy-browser/audit"
	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/spec"
)

// Files out: a download the page starts during the User's turn (the
// browser refuses it, and records it on its tab) is fetched through the
// browser (browser.Page.FetchDownload: over CDP, so it works attached to
// a pool), bounded in size, and offered in every live view of the turn to
// save on the User's device: the state lists it (name, size), the viewer
// asks for it (download_get) and gets its bytes in download_chunk
// messages. It is kept in memory only, until the turn ends plus
// downloadGrace; no path, byte or link of it reaches the agent, its
// client or the logs. The audit line has its name, size and SHA-256.

// DefaultMaxDownloadBytes bounds a download offered to the User when
// LiveOptions.MaxDownloadBytes is zero.
const DefaultMaxDownloadBytes = 20 << 20

// downloadGrace is how long a download is kept after the turn it came in:
// time for a view to save it after the hand back.
const downloadGrace = 2 * time.Minute

// downloadChunk is the bytes one download_chunk message carries, and
// downloadBatch how many are queued before waiting for them to be written.
const (
	downloadChunk = 256 << 10
	downloadBatch = 8
)

// keptDownload is a download of the User's turn, held for their views.
type keptDownload struct {
	id     string
	name   string
	host   string
	typ    string
	data   []byte
	refuse string // why it is not offered (too big, not fetched), in words
}

// downloadMsg is a download in the state: its name, size and, when it
// cannot be saved, why.
type downloadMsg struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Host    string `json:"host"`
	Size    int    `json:"size"`
	Refused string `json:"refused,omitempty"`
}

// downloadChunkMsg carries a slice of a download's bytes to a viewer that
// asked for it.
type downloadChunkMsg struct {
	Type string `json:"type"` // "download_chunk"
	ID   string `json:"id"`
	Name string `json:"name"`
	Mime string `json:"mime"`
	Size int    `json:"size"`
	At   int    `json:"at"`
	Data []byte `json:"data"`
}

func (l *Live) maxDownloadBytes() int {
	if l.downloadLimit > 0 {
		return l.downloadLimit
	}
	return DefaultMaxDownloadBytes
}

// checkDownloads looks for the downloads the shown tab started in the
// User's turn and fetches each new one (runCast calls it on its poll);
// it forgets those whose turn ended more than downloadGrace ago.
func (l *Live) checkDownloads(p *browser.Page) {
	st := l.ctl.Status()
	l.mu.Lock()
	l.expireDownloadsLocked()
	start, seen := l.turnStart, l.downloadSeen
	l.mu.Unlock()
	if p == nil || st.Controller != spec.ControllerUser || start.IsZero() {
		return
	}
	for _, d := range p.Downloads() {
		if d.At.Before(start) || !d.At.After(seen) {
			continue
		}
		seen = d.At
		l.mu.Lock()
		l.downloadSeen = d.At
		l.mu.Unlock()
		l.wg.Go(func() { l.fetchDownload(p, d) })
	}
}

// expireDownloadsLocked forgets the downloads of a turn that ended more
// than downloadGrace ago.
func (l *Live) expireDownloadsLocked() {
	if len(l.downloads) > 0 && l.turnStart.IsZero() && l.now().Sub(l.turnEnd) > downloadGrace {
		l.downloads = nil
	}
}

// fetchDownload gets d's bytes through the browser and offers them.
func (l *Live) fetchDownload(p *browser.Page, d browser.Download) {
	ctx, cancel := context.WithTimeout(l.ctx, time.Minute)
	defer cancel()
	k := &keptDownload{id: randomID(), name: downloadName(d), host: hostOf(d.URL)}
	data, typ, err := p.FetchDownload(ctx, d, l.maxDownloadBytes())
	switch {
	case errors.Is(err, browser.ErrDownloadTooBig):
		k.refuse = fmt.Sprintf("it is over %s, the largest download the live view passes on", sizeWords(l.maxDownloadBytes()))
	case err != nil:
		l.log.Debug("live view download not fetched", "err", err)
		k.refuse = "the browser could not fetch it again; try the page's link once more"
	default:
		k.data, k.typ = data, typ
		sum := sha256.Sum256(data)
		l.audit(audit.Entry{Event: audit.EventFile, How: audit.FileDownloaded, By: audit.ByUser, URL: p.URL(),
			File: &audit.File{Name: k.name, Size: len(data), SHA256: hex.EncodeToString(sum[:])}})
	}
	l.mu.Lock()
	l.downloads = append(l.downloads, k)
	l.mu.Unlock()
	l.broadcastState()
}

// downloadsFor lists the downloads of the User's turn, for the state of a
// view whose User proved their presence.
func (l *Live) downloadsFor(st control.Status) []downloadMsg {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.expireDownloadsLocked()
	var out []downloadMsg
	for _, k := range l.downloads {
		out = append(out, downloadMsg{ID: k.id, Name: k.name, Host: k.host, Size: len(k.data), Refused: k.refuse})
	}
	return out
}

// sendDownload streams download id to c, in chunks, without filling its
// queue: a batch at a time, each written before the next.
func (l *Live) sendDownload(c *client, id string) {
	l.mu.Lock()
	l.expireDownloadsLocked()
	var k *keptDownload
	for _, d := range l.downloads {
		if d.id == id && d.refuse == "" {
			k = d
		}
	}
	l.mu.Unlock()
	if k == nil {
		c.queue(errorMsg{Type: "error", Message: "that download is no longer kept: it lasts for your turn and a short while after"})
		return
	}
	l.wg.Go(func() {
		at := 0
		for n := 1; ; n++ {
			end := min(at+downloadChunk, len(k.data))
			c.queue(downloadChunkMsg{Type: "download_chunk", ID: k.id, Name: k.name, Mime: k.typ, Size: len(k.data), At: at, Data: k.data[at:end]})
			if at = end; at >= len(k.data) {
				return
			}
			if n%downloadBatch == 0 {
				select {
				case <-c.flush():
				case <-c.done:
					return
				}
			}
		}
	})
}

// downloadName is the name to save d under (browser.Download.SaveName).
func downloadName(d browser.Download) string { return d.SaveName() }

func hostOf(s string) string {
	if u, err := url.Parse(s); err == nil {
		return u.Hostname()
	}
	return ""
}

func randomID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
