package browser

import (
	"context"
	"fmt"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/runtime"
)

// AdoptClosedShadowRoots hands every closed shadow root of the frame's
// document, whatever element hosts it and however deeply nested, to a script
// world, which cannot reach them from JavaScript: adoptFn is called once in
// that world as adoptFn(root1, root2, ...) (root.host is each one's host),
// and what it returns is decoded into res (as [Frame.Call] does); with no
// closed root it is not called. It returns how many roots it handed over.
// This walks the whole document in the browser: call it when a root may
// have been attached, not on every read. The browser reads the roots over
// CDP (DOM.describeNode of the document with pierce, then DOM.resolveNode
// into the world); nothing runs in the page's own world. Child frames'
// documents are left to their own frames.
func (f Frame) AdoptClosedShadowRoots(ctx context.Context, world, adoptFn string, res any) (int, error) {
	if f.t == nil {
		return 0, fmt.Errorf("%w: no frame", ErrFrameGone)
	}
	id, err := f.t.context(ctx, cdp.FrameID(f.ID), world)
	if err != nil {
		return 0, err
	}
	s := f.t.main()
	group := fmt.Sprintf("poppy-browser-shadow-%d", f.t.b.getterCalls.Add(1))
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
		defer cancel()
		_ = f.t.s.Call(cctx, runtime.CommandReleaseObjectGroup, runtime.ReleaseObjectGroupParams{ObjectGroup: group}, nil)
	}()
	doc, err := cdp.Call(ctx, s, runtime.Evaluate, runtime.EvaluateParams{Expression: "document", ContextID: id, ObjectGroup: group})
	if err != nil {
		return 0, f.t.frameErr(cdp.FrameID(f.ID), id, world, err)
	}
	if doc.ExceptionDetails != nil {
		return 0, fmt.Errorf("script error: %s", exceptionText(doc.ExceptionDetails))
	}
	if doc.Result == nil || doc.Result.ObjectID == "" {
		return 0, nil
	}
	desc, err := cdp.Call(ctx, s, dom.DescribeNode, dom.DescribeNodeParams{ObjectID: doc.Result.ObjectID, Depth: ptr(int64(-1)), Pierce: ptr(true)})
	if err != nil {
		return 0, f.t.frameErr(cdp.FrameID(f.ID), id, world, err)
	}
	var args []*runtime.CallArgument
	for _, root := range closedRoots(desc.Node, nil) {
		obj, err := cdp.Call(ctx, s, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: root, ExecutionContextID: id, ObjectGroup: group})
		if err != nil {
			return 0, f.t.frameErr(cdp.FrameID(f.ID), id, world, err)
		}
		if obj.Object != nil && obj.Object.ObjectID != "" {
			args = append(args, &runtime.CallArgument{ObjectID: obj.Object.ObjectID})
		}
	}
	if len(args) == 0 {
		return 0, nil
	}
	out, err := cdp.Call(ctx, s, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: adoptFn, ExecutionContextID: id, ObjectGroup: group, Arguments: args, ReturnByValue: ptr(true),
	})
	if err != nil {
		return 0, f.t.frameErr(cdp.FrameID(f.ID), id, world, err)
	}
	if out.ExceptionDetails != nil {
		return 0, fmt.Errorf("script error: %s", exceptionText(out.ExceptionDetails))
	}
	if res != nil && out.Result != nil && len(out.Result.Value) > 0 {
		if err := jsonv2.Unmarshal(out.Result.Value, res); err != nil {
			return 0, fmt.Errorf("decoding the result: %w", err)
		}
	}
	return len(args), nil
}

// closedRoots appends the closed shadow roots in n's tree (shadow trees
// included, other frames' documents not) to out.
func closedRoots(n *cdp.Node, out []cdp.BackendNodeID) []cdp.BackendNodeID {
	if n == nil {
		return out
	}
	for _, r := range n.ShadowRoots {
		if r.ShadowRootType == cdp.ShadowRootTypeClosed {
			out = append(out, r.BackendNodeID)
		}
		out = closedRoots(r, out)
	}
	for _, c := range n.Children {
		out = closedRoots(c, out)
	}
	return out
}
