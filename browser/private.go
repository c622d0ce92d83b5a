package browser

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/runtime"
)

// ErrNotAllowed means the frame's document has an origin the caller did not
// allow; nothing was evaluated or called in it.
var ErrNotAllowed = errors.New("origin not allowed")

// CallPrivate calls a function that an injected script keeps in a private
// field (#name) of the object expr evaluates to in the frame's main world,
// directly by object id, with args as JSON values, and decodes its result
// into res. Page scripts cannot name a private field, so they can neither
// call nor intercept it: this is how a value kept in an injected script's
// closure is changed without a secret.
//
// It runs only in a document whose origin (as the browser reports it, "null"
// when opaque) allow accepts; for any other it returns an error wrapping
// [ErrNotAllowed] without evaluating anything. The check and the calls are
// bound to one document: if the frame navigates in between, the calls fail.
// A missing object or field, or a frame whose document has not started yet
// (it will run the scripts registered by then), is an error wrapping
// [ErrNoObject]: it does not wait for a document.
func (f Frame) CallPrivate(ctx context.Context, allow func(origin string) bool, expr, field string, res any, args ...any) error {
	if f.t == nil {
		return fmt.Errorf("%w: no frame", ErrFrameGone)
	}
	f.t.mu.Lock()
	ec, ok := f.t.contexts[cdp.FrameID(f.ID)][""]
	f.t.mu.Unlock()
	if !ok {
		return fmt.Errorf("%w: frame %s has no document yet", ErrNoObject, f.ID)
	}
	if !allow(ec.origin) {
		return fmt.Errorf("%w: frame %s", ErrNotAllowed, f.ID)
	}
	s := f.t.main() // bounded: a busy, crashed or dialog-held tab fails at once or at its bound
	// One object group per call: calls in other frames of this target run
	// at the same time and release their own groups.
	group := fmt.Sprintf("poppy-browser-private-%d", f.t.b.getterCalls.Add(1))
	defer func() {
		// Not awaited: a busy renderer would hold the caller past its
		// bound; the session runs it after the calls above all the same.
		if id, ch, err := f.t.s.Send(context.WithoutCancel(ctx), runtime.CommandReleaseObjectGroup, runtime.ReleaseObjectGroupParams{ObjectGroup: group}); err == nil {
			f.t.b.wg.Go(func() { _ = f.t.s.Wait(f.t.b.ctx, id, ch, runtime.CommandReleaseObjectGroup, nil) })
		}
	}()
	ev, err := cdp.Call(ctx, s, runtime.Evaluate, runtime.EvaluateParams{Expression: expr, ContextID: ec.id, ObjectGroup: group})
	if err != nil {
		return f.t.frameErr(cdp.FrameID(f.ID), ec.id, "", err)
	}
	if ev.ExceptionDetails != nil || ev.Result == nil || ev.Result.ObjectID == "" {
		return fmt.Errorf("%w: %s is not an object here", ErrNoObject, expr)
	}
	props, err := cdp.Call(ctx, s, runtime.GetProperties, runtime.GetPropertiesParams{ObjectID: ev.Result.ObjectID, OwnProperties: ptr(true)})
	if err != nil {
		return f.t.frameErr(cdp.FrameID(f.ID), ec.id, "", err)
	}
	var fn runtime.RemoteObjectID
	for _, p := range props.PrivateProperties {
		if p.Name == field && p.Value != nil && p.Value.Type == runtime.RemoteObjectTypeFunction {
			fn = p.Value.ObjectID
		}
	}
	if fn == "" {
		return fmt.Errorf("%w: %s has no private function %s", ErrNoObject, expr, field)
	}
	callArgs := make([]*runtime.CallArgument, len(args))
	params := make([]string, len(args))
	for i, a := range args {
		raw, err := jsonv2.Marshal(a)
		if err != nil {
			return fmt.Errorf("encoding argument %d: %w", i, err)
		}
		callArgs[i] = &runtime.CallArgument{Value: raw}
		params[i] = fmt.Sprintf("a%d", i)
	}
	list := strings.Join(params, ",")
	out, err := cdp.Call(ctx, s, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		// A direct call of the function: no page global is on this path.
		FunctionDeclaration: "function(" + list + "){ return this(" + list + ") }",
		ObjectID:            fn,
		Arguments:           callArgs,
		ReturnByValue:       ptr(true),
		ObjectGroup:         group,
	})
	if err != nil {
		return f.t.frameErr(cdp.FrameID(f.ID), ec.id, "", err)
	}
	if out.ExceptionDetails != nil {
		return fmt.Errorf("script error: %s", exceptionText(out.ExceptionDetails))
	}
	if res != nil && out.Result != nil && len(out.Result.Value) > 0 {
		return jsonv2.Unmarshal(out.Result.Value, res)
	}
	return nil
}

// Origin is the security origin of the frame's current document, as the
// browser reports it: "null" for an opaque origin (a sandboxed or data:
// frame), the parent's for about:srcdoc and about:blank. It waits for the
// document's main world to exist.
func (f Frame) Origin(ctx context.Context) (string, error) {
	if f.t == nil {
		return "", fmt.Errorf("%w: no frame", ErrFrameGone)
	}
	ec, err := f.t.contextOf(ctx, cdp.FrameID(f.ID), "")
	if err != nil {
		return "", err
	}
	return ec.origin, nil
}
