package ui

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"mime"
	"net/url"
	"path"
	"strings"
	"time"
	"unicode"

	"github.com/poppy-browser/poppy-browser/audit"
	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/spec"
)

// Files in: while the User holds control, a file chooser the page opens
// (browser.Page.FileRequest) is shown in every live view as the page's
// request ("airline.test asks for a file: Passport scan"). The viewer in
// control picks files on its own device and sends them over the
// websocket in chunks: file_begin names them (checked against the bounds
// and the input's accept), file_chunk carries their bytes in order, and
// once the last byte is in they are set on the page's input
// (browser.Page.ChooseFiles). The agent never gets the bytes: its next
// look names the file and its size; the audit line has name, size and
// SHA-256. A chooser opened before the User's turn is not shown: it stays
// the User's step, as the agent's result said.

// DefaultMaxFileBytes bounds one file the User sends when
// LiveOptions.MaxFileBytes is zero.
const DefaultMaxFileBytes = 10 << 20

// maxFiles bounds the files of one answer to a chooser that takes several.
const maxFiles = 10

// turnFiles is the live view's part for files in its User's turn.
type turnFiles struct {
	// When the turn began (zero outside one) and last ended: a chooser or
	// download from before it is not the User's here.
	turnStart, turnEnd time.Time
	fileLimit          int // the bound of one file in; 0: DefaultMaxFileBytes
	// The downloads of the turn (downloads.go), kept until it ends plus
	// downloadGrace; the newest one looked at; the bound of one.
	downloads     []*keptDownload
	downloadSeen  time.Time
	downloadLimit int
}

// fileRequestMsg is the page's file chooser, in the state during the
// User's turn.
type fileRequestMsg struct {
	ID       uint64 `json:"id"`
	Host     string `json:"host"`   // the site whose page asks
	Label    string `json:"label"`  // the input's label: the page's words
	Accept   string `json:"accept"` // the input's accept attribute
	Multiple bool   `json:"multiple"`
	MaxBytes int    `json:"max_bytes"` // the largest file the runtime takes
	MaxFiles int    `json:"max_files"`
}

// fileMeta is one file a file_begin message announces.
type fileMeta struct {
	Name string `json:"name"`
	Type string `json:"type"`
	Size int    `json:"size"`
}

// fileAnswerMsg tells the viewer that sent files what became of them:
// "file_sent" (set on the page) or "file_refused" (with why, in words).
type fileAnswerMsg struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// upload is the files a viewer is sending, until the last byte is in.
type upload struct {
	request uint64
	files   []fileMeta
	data    [][]byte
	cur     int // the file the next chunk belongs to
}

func (l *Live) maxFileBytes() int {
	if l.fileLimit > 0 {
		return l.fileLimit
	}
	return DefaultMaxFileBytes
}

// noteTurn keeps when the User's turn began (a chooser opened before it
// is not theirs to answer here) and ends every upload with the turn.
func (l *Live) noteTurn(e control.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case e.Kind == control.Taken:
		if l.turnStart.IsZero() || e.From != spec.ControllerUser {
			l.turnStart = e.Time
			l.downloads = nil // a new turn: the last one's downloads are gone
		}
	case e.Kind.ChangesHolder():
		l.turnStart = time.Time{}
		l.turnEnd = e.Time
	}
}

// fileRequest is the shown page's file chooser, when it opened during the
// User's turn.
func (l *Live) fileRequest(p *browser.Page, st control.Status) *fileRequestMsg {
	if p == nil || st.Controller != spec.ControllerUser {
		return nil
	}
	req, ok := p.FileRequest()
	if !ok {
		return nil
	}
	l.mu.Lock()
	start := l.turnStart
	l.mu.Unlock()
	if start.IsZero() || req.At.Before(start) {
		return nil
	}
	host := ""
	for _, f := range p.Frames() {
		if f.ID == req.Frame {
			if u, err := url.Parse(f.URL); err == nil {
				host = u.Hostname()
			}
		}
	}
	n := 1
	if req.Multiple {
		n = maxFiles
	}
	return &fileRequestMsg{ID: req.ID, Host: host, Label: req.Label, Accept: req.Accept,
		Multiple: req.Multiple, MaxBytes: l.maxFileBytes(), MaxFiles: n}
}

// fileMessage runs file_begin, file_chunk and file_cancel from the viewer
// in control.
func (l *Live) fileMessage(ctx context.Context, c *client, p *browser.Page, m inMsg) {
	refuse := func(why string) {
		c.upload = nil
		c.queue(fileAnswerMsg{Type: "file_refused", Message: why})
	}
	req := l.fileRequest(p, l.ctl.Status())
	if req == nil || req.ID != m.Request {
		refuse("the page no longer asks for a file")
		return
	}
	switch m.Type {
	case "file_cancel":
		c.upload = nil
		p.DismissFileRequest(req.ID)
		l.broadcastState()
	case "file_begin":
		if why := checkFiles(req, m.Files); why != "" {
			refuse(why)
			return
		}
		u := &upload{request: req.ID, files: m.Files, data: make([][]byte, len(m.Files))}
		for i, f := range m.Files {
			u.data[i] = make([]byte, 0, f.Size)
		}
		c.upload = u
		u.skipEmpty()
		if u.done() {
			l.chooseFiles(ctx, c, p, u)
		}
	case "file_chunk":
		u := c.upload
		if u == nil || u.request != req.ID {
			refuse("send file_begin first")
			return
		}
		if !u.add(m.Data) {
			refuse(fmt.Sprintf("%q sent more bytes than its size", u.files[min(u.cur, len(u.files)-1)].Name))
			return
		}
		if u.done() {
			l.chooseFiles(ctx, c, p, u)
		}
	}
}

// add appends a chunk to the current file, moving to the next when it is
// whole; false when the chunk goes past the announced sizes.
func (u *upload) add(b []byte) bool {
	for len(b) > 0 {
		if u.cur >= len(u.files) {
			return false
		}
		room := u.files[u.cur].Size - len(u.data[u.cur])
		n := min(room, len(b))
		u.data[u.cur] = append(u.data[u.cur], b[:n]...)
		b = b[n:]
		if len(u.data[u.cur]) == u.files[u.cur].Size {
			u.cur++
		}
	}
	u.skipEmpty()
	return true
}

// skipEmpty passes the files of size 0, which no chunk carries.
func (u *upload) skipEmpty() {
	for u.cur < len(u.files) && u.files[u.cur].Size == 0 {
		u.cur++
	}
}

func (u *upload) done() bool { return u.cur >= len(u.files) }

// chooseFiles sets the whole upload on the page's input and records it.
func (l *Live) chooseFiles(ctx context.Context, c *client, p *browser.Page, u *upload) {
	c.upload = nil
	picked := make([]browser.PickedFile, len(u.files))
	for i, f := range u.files {
		picked[i] = browser.PickedFile{Name: f.Name, Type: f.Type, Data: u.data[i]}
	}
	if err := p.ChooseFiles(ctx, u.request, picked); err != nil {
		l.log.Debug("live view files not set", "err", err)
		msg := "the page did not take the file"
		if errors.Is(err, browser.ErrNoFileRequest) {
			msg = "the page no longer asks for a file"
		}
		c.queue(fileAnswerMsg{Type: "file_refused", Message: msg})
		return
	}
	names := make([]string, len(picked))
	for i, f := range picked {
		sum := sha256.Sum256(f.Data)
		l.audit(audit.Entry{Event: audit.EventFile, How: audit.FileChosen, By: audit.ByUser, URL: p.URL(),
			File: &audit.File{Name: f.Name, Size: len(f.Data), SHA256: hex.EncodeToString(sum[:])}})
		names[i] = fmt.Sprintf("%s (%s)", f.Name, sizeWords(len(f.Data)))
	}
	c.queue(fileAnswerMsg{Type: "file_sent", Message: "Sent to the page: " + strings.Join(names, ", ")})
	l.broadcastState()
}

// checkFiles says, in words for the User, why files do not answer req
// ("" when they do): their count, a name, a size, a type the input does
// not accept.
func checkFiles(req *fileRequestMsg, files []fileMeta) string {
	switch {
	case len(files) == 0:
		return "no file was sent"
	case len(files) > req.MaxFiles && req.MaxFiles == 1:
		return "the page takes one file here"
	case len(files) > req.MaxFiles:
		return fmt.Sprintf("the page takes at most %d files at once here", req.MaxFiles)
	}
	for _, f := range files {
		if f.Name == "" || len(f.Name) > 255 || strings.ContainsAny(f.Name, `/\`) || strings.IndexFunc(f.Name, unicode.IsControl) >= 0 {
			return "a file's name is not one a page can get"
		}
		if f.Size < 0 || f.Size > req.MaxBytes {
			return fmt.Sprintf("%q is %s; the largest file the live view sends is %s", f.Name, sizeWords(f.Size), sizeWords(req.MaxBytes))
		}
		if !accepts(req.Accept, f.Name, f.Type) {
			return fmt.Sprintf("%q is not a kind of file the page takes here (%s)", f.Name, req.Accept)
		}
	}
	return ""
}

// accepts reports whether a file of name and MIME type fits an input's
// accept attribute: a comma-separated list of extensions (".pdf"), MIME
// types ("application/pdf") and wildcards ("image/*"). An empty accept
// takes anything.
func accepts(accept, name, typ string) bool {
	if strings.TrimSpace(accept) == "" {
		return true
	}
	ext := strings.ToLower(path.Ext(name))
	typ = strings.ToLower(strings.TrimSpace(typ))
	if mt, _, err := mime.ParseMediaType(typ); err == nil {
		typ = mt
	} else {
		typ = ""
	}
	for _, a := range strings.Split(accept, ",") {
		a = strings.ToLower(strings.TrimSpace(a))
		switch {
		case a == "":
		case strings.HasPrefix(a, "."):
			if ext == a {
				return true
			}
		case strings.HasSuffix(a, "/*"):
			if typ != "" && strings.HasPrefix(typ, strings.TrimSuffix(a, "*")) {
				return true
			}
		case typ != "" && a == typ:
			return true
		}
	}
	return false
}

// sizeWords is a size as people read it: "812 bytes", "1.5 KB", "12.0 MB".
func sizeWords(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KB", float64(n)/1024)
	default:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	}
}
