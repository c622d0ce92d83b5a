package browser

import (
	"context"
	_ "embed"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
)

// A file chooser a page opens is intercepted (no dialog opens on the
// machine the browser runs on) and kept as the tab's pending
// [FileRequest] until it is answered with [Page.ChooseFiles], dismissed,
// replaced by a newer one or its document goes. The caller (the live view,
// during the User's turn) shows it and answers it with the files the User
// picked on their own device: they are set in the page from their bytes,
// so it works when the browser is on another machine (a pool).

//go:embed js/choose.js
var chooseJS string

//go:embed js/chooser.js
var chooserJS string

// FileRequest is a file chooser the page opened and nobody answered yet.
type FileRequest struct {
	ID       uint64 // distinct within the browser's run
	Frame    FrameID
	Label    string // the input's label: the page's words, cleaned of nothing
	Accept   string // the input's accept attribute, as the page wrote it
	Multiple bool
	At       time.Time

	t    *tgt
	node cdp.BackendNodeID
}

// PickedFile is a file the User picked on their device, for
// [Page.ChooseFiles].
type PickedFile struct {
	Name string
	Type string // its MIME type, "" when unknown
	Data []byte
}

// ChosenFile is what a tab records of a file the User chose: its name and
// size, never its bytes.
type ChosenFile struct {
	Label string // the input's label
	Name  string
	Size  int
	At    time.Time
}

// ErrNoFileRequest: the file chooser answered is no longer open.
var ErrNoFileRequest = errors.New("the page's file chooser is no longer open")

// FileRequest returns the tab's open file chooser.
func (p *Page) FileRequest() (FileRequest, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.request == nil {
		return FileRequest{}, false
	}
	return *p.request, true
}

// ChosenFiles lists the last files the User chose in the tab's current
// document, names and sizes only.
func (p *Page) ChosenFiles() []ChosenFile {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]ChosenFile(nil), p.chosen...)
}

// DismissFileRequest closes the chooser id without a file (the User said
// not now); the page sees no change, as when a picker is cancelled.
func (p *Page) DismissFileRequest(id uint64) {
	p.mu.Lock()
	if p.request != nil && p.request.ID == id {
		p.request = nil
	}
	p.mu.Unlock()
	p.tabs.touch()
}

// ChooseFiles answers the chooser id with files: the input's files are
// set from their bytes, and it fires input and change as a picker would.
func (p *Page) ChooseFiles(ctx context.Context, id uint64, files []PickedFile) error {
	p.mu.Lock()
	req := p.request
	p.mu.Unlock()
	if req == nil || req.ID != id {
		return ErrNoFileRequest
	}
	if len(files) > 1 && !req.Multiple {
		return errors.New("the page's file input takes one file")
	}
	type wireFile struct {
		Name string `json:"name"`
		Type string `json:"type"`
		Data string `json:"data"`
	}
	wire := make([]wireFile, len(files))
	for i, f := range files {
		wire[i] = wireFile{Name: f.Name, Type: f.Type, Data: base64.StdEncoding.EncodeToString(f.Data)}
	}
	var n int
	if err := req.t.callOnNode(ctx, req.Frame, req.node, chooseJS, &n, wire); err != nil {
		return fmt.Errorf("setting the files on the page's input: %w", err)
	}
	now := time.Now()
	p.mu.Lock()
	if p.request != nil && p.request.ID == id {
		p.request = nil
	}
	for _, f := range files {
		p.chosen = appendKept(p.chosen, ChosenFile{Label: req.Label, Name: f.Name, Size: len(f.Data), At: now})
	}
	p.mu.Unlock()
	p.tabs.touch()
	return nil
}

// chooserOpened records a file chooser the page opened. The input's label
// and accept attribute are read after the handler returns (it runs on the
// read loop); the request is published once they are known.
func (p *Page) chooserOpened(t *tgt, ev page.EventFileChooserOpened) {
	now := time.Now()
	multiple := ev.Mode == page.FileChooserOpenedModeSelectMultiple
	p.mu.Lock()
	p.choosers = appendKept(p.choosers, FileChooser{Frame: FrameID(ev.FrameID), Multiple: multiple, At: now})
	p.mu.Unlock()
	if ev.BackendNodeID == 0 {
		return // not an <input type=file> (showOpenFilePicker): nothing to set files on
	}
	req := &FileRequest{ID: p.b.getterCalls.Add(1), Frame: FrameID(ev.FrameID), Multiple: multiple, At: now, t: t, node: ev.BackendNodeID}
	p.b.wg.Go(func() {
		ctx, cancel := context.WithTimeout(p.b.ctx, cleanupTimeout)
		defer cancel()
		var info struct{ Label, Accept string }
		if err := t.callOnNode(ctx, req.Frame, req.node, chooserJS, &info); err != nil {
			p.b.log.Debug("reading a file input", "err", err)
		}
		req.Label, req.Accept = info.Label, info.Accept
		p.mu.Lock()
		p.request = req
		p.mu.Unlock()
		p.tabs.touch()
	})
}

// newDocumentFiles forgets the chooser and the chosen files of a document
// that went.
func (p *Page) newDocumentFilesLocked() {
	p.request, p.chosen = nil, nil
}

// callOnNode calls fn on the node (this = the element) in the isolated
// world of its frame, with args, and decodes its JSON result into res.
func (t *tgt) callOnNode(ctx context.Context, frame FrameID, node cdp.BackendNodeID, fn string, res any, args ...any) error {
	id, err := t.context(ctx, cdp.FrameID(frame), UtilityWorld)
	if err != nil {
		return err
	}
	s := t.main()
	group := fmt.Sprintf("poppy-browser-files-%d", t.b.getterCalls.Add(1))
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
		defer cancel()
		_ = t.s.Call(cctx, runtime.CommandReleaseObjectGroup, runtime.ReleaseObjectGroupParams{ObjectGroup: group}, nil)
	}()
	obj, err := cdp.Call(ctx, s, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: node, ExecutionContextID: id, ObjectGroup: group})
	if err != nil {
		return t.frameErr(cdp.FrameID(frame), id, UtilityWorld, err)
	}
	if obj.Object == nil || obj.Object.ObjectID == "" {
		return ErrNoFileRequest
	}
	callArgs := make([]*runtime.CallArgument, len(args))
	for i, a := range args {
		raw, err := jsonv2.Marshal(a)
		if err != nil {
			return fmt.Errorf("encoding argument %d: %w", i, err)
		}
		callArgs[i] = &runtime.CallArgument{Value: raw}
	}
	out, err := cdp.Call(ctx, s, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: fn, ObjectID: obj.Object.ObjectID, Arguments: callArgs, ReturnByValue: ptr(true),
	})
	if err != nil {
		return t.frameErr(cdp.FrameID(frame), id, UtilityWorld, err)
	}
	if out.ExceptionDetails != nil {
		return fmt.Errorf("script error: %s", exceptionText(out.ExceptionDetails))
	}
	if res != nil && out.Result != nil && len(out.Result.Value) > 0 {
		return jsonv2.Unmarshal(out.Result.Value, res)
	}
	return nil
}
