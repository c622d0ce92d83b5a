package browser

import (
	"context"
	"fmt"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/runtime"
)

// AdoptClosedShadowRoots hands closed shadow roots to a script world, which
// cannot reach them from JavaScript. hostsFn, run in world of the frame,
// returns an array of elements that may host one; for each that does,
// adoptFn is called in that world as adoptFn(host, root). It returns how
// many roots were handed over. Open and user-agent roots are skipped. The
// browser reads the roots over CDP (DOM.describeNode with pierce, then
// DOM.resolveNode into the world); nothing runs in the page's own world.
func (f Frame) AdoptClosedShadowRoots(ctx context.Context, world, hostsFn, adoptFn string) (int, error) {
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
	hosts, err := cdp.Call(ctx, s, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: hostsFn, ExecutionContextID: id, ObjectGroup: group,
	})
	if err != nil {
		return 0, f.t.frameErr(cdp.FrameID(f.ID), id, world, err)
	}
	if hosts.ExceptionDetails != nil {
		return 0, fmt.Errorf("script error: %s", exceptionText(hosts.ExceptionDetails))
	}
	if hosts.Result == nil || hosts.Result.ObjectID == "" {
		return 0, nil
	}
	props, err := cdp.Call(ctx, s, runtime.GetProperties, runtime.GetPropertiesParams{ObjectID: hosts.Result.ObjectID, OwnProperties: ptr(true)})
	if err != nil {
		return 0, f.t.frameErr(cdp.FrameID(f.ID), id, world, err)
	}
	n := 0
	for _, p := range props.Result {
		if p.Value == nil || p.Value.ObjectID == "" || p.Value.Subtype != "node" {
			continue
		}
		desc, err := cdp.Call(ctx, s, dom.DescribeNode, dom.DescribeNodeParams{ObjectID: p.Value.ObjectID, Depth: ptr(int64(0)), Pierce: ptr(true)})
		if err != nil {
			return n, f.t.frameErr(cdp.FrameID(f.ID), id, world, err)
		}
		if desc.Node == nil {
			continue
		}
		for _, root := range desc.Node.ShadowRoots {
			if root.ShadowRootType != cdp.ShadowRootTypeClosed {
				continue
			}
			obj, err := cdp.Call(ctx, s, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: root.BackendNodeID, ExecutionContextID: id, ObjectGroup: group})
			if err != nil {
				return n, f.t.frameErr(cdp.FrameID(f.ID), id, world, err)
			}
			if obj.Object == nil || obj.Object.ObjectID == "" {
				continue
			}
			out, err := cdp.Call(ctx, s, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
				FunctionDeclaration: adoptFn, ExecutionContextID: id, ObjectGroup: group,
				Arguments: []*runtime.CallArgument{{ObjectID: p.Value.ObjectID}, {ObjectID: obj.Object.ObjectID}},
			})
			if err != nil {
				return n, f.t.frameErr(cdp.FrameID(f.ID), id, world, err)
			}
			if out.ExceptionDetails != nil {
				return n, fmt.Errorf("script error: %s", exceptionText(out.ExceptionDetails))
			}
			n++
		}
	}
	return n, nil
}
