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
	return f.call(ctx, world, fn, true, res, args...)
}

// CallNow is [Frame.Call] for a function that returns its result at once
// (no promise), in the frame's document of now: its answer does not wait
// for the page's microtasks, so it comes even while the frame's renderer
// is held ([Frame.Hold]), where an awaited call answers only once the
// renderer runs again. A frame without a script context of world now is
// an error wrapping [ErrNoObject], at once.
func (f Frame) CallNow(ctx context.Context, world, fn string, res any, args ...any) error {
	return f.call(ctx, world, fn, false, res, args...)
}

func (f Frame) call(ctx context.Context, world, fn string, await bool, res any, args ...any) error {
	if f.t == nil {
		return fmt.Errorf("%w: no frame", ErrFrameGone)
	}
	var id runtime.ExecutionContextID
	if await {
		var err error
		if id, err = f.t.context(ctx, cdp.FrameID(f.ID), world); err != nil {
			return err
		}
	} else {
		f.t.mu.Lock()
		ec, ok := f.t.contexts[cdp.FrameID(f.ID)][world]
		f.t.mu.Unlock()
		if !ok {
			return fmt.Errorf("%w: frame %s has no script context %q now", ErrNoObject, f.ID, world)
		}
		id = ec.id
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
		AwaitPromise:        ptr(await),
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
