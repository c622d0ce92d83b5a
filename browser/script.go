package browser

import (
	"context"
	"fmt"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/runtime"
)

// Call runs the function declaration fn in world of the frame ("" is the
// page's own world) with args as JSON values, and decodes its JSON result
// (promises are awaited) into res. A thrown exception is an error.
func (f Frame) Call(ctx context.Context, world, fn string, res any, args ...any) error {
	if f.t == nil {
		return fmt.Errorf("%w: no frame", ErrFrameGone)
	}
	id, err := f.t.context(ctx, cdp.FrameID(f.ID), world)
	if err != nil {
		return err
	}
	callArgs := make([]*runtime.CallArgument, len(args))
	for i, a := range args {
		raw, err := jsonv2.Marshal(a)
		if err != nil {
			return fmt.Errorf("encoding argument %d: %w", i, err)
		}
		callArgs[i] = &runtime.CallArgument{Value: raw}
	}
	out, err := cdp.Call(ctx, f.t.main(), runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: fn,
		ExecutionContextID:  id,
		Arguments:           callArgs,
		ReturnByValue:       ptr(true),
		AwaitPromise:        ptr(true),
	})
	if err != nil {
		return f.t.frameErr(cdp.FrameID(f.ID), id, world, err)
	}
	if out.ExceptionDetails != nil {
		return fmt.Errorf("script error: %s", exceptionText(out.ExceptionDetails))
	}
	if res != nil && out.Result != nil && len(out.Result.Value) > 0 {
		if err := jsonv2.Unmarshal(out.Result.Value, res); err != nil {
			return fmt.Errorf("decoding script result: %w", err)
		}
	}
	return nil
}

func exceptionText(d *runtime.ExceptionDetails) string {
	if d.Exception != nil && d.Exception.Description != "" {
		return firstLine(d.Exception.Description)
	}
	return firstLine(d.Text)
}

func firstLine(s string) string {
	for i, r := range s {
		if r == '\n' {
			return s[:i]
		}
	}
	return s
}

// frameErr turns a failed command in a frame's script context into
// ErrFrameGone when the context it ran in no longer exists (the document
// went away under it): the browser's own state says so, not the text of the
// protocol error.
func (t *tgt) frameErr(frame cdp.FrameID, id runtime.ExecutionContextID, world string, err error) error {
	if err == nil || isGone(err) || cdpCode(err) == 0 {
		return err
	}
	t.mu.Lock()
	c, ok := t.contexts[frame][world]
	t.mu.Unlock()
	if !ok || c.id != id {
		return fmt.Errorf("%w: %v", ErrFrameGone, err)
	}
	return err
}
