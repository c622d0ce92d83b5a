package marks

import (
	"context"
	"fmt"

	"github.com/poppy-browser/poppy-browser/browser"
)

//go:generate go test -run ^TestScannerExportsGo$ . -update

// scannerFunc is one function the scanner offers Go, a property of
// globalThis.poppyMarks in [World]. Its values are written from
// js/scanner/exports.js into exports_gen.go by go generate
// (TestScannerExportsGo), so the list lives in the script alone and a call
// of a function the scanner does not offer does not compile.
type scannerFunc struct{ name string }

// call is a function declaration that calls it with the call's arguments
// and returns its value. Every value is an argument, never source text.
func (fn scannerFunc) call() string {
	return "function(...a) { return globalThis.poppyMarks." + fn.name + "(...a); }"
}

// guarded is call for a function that throws to fail: the declaration
// returns {value} or {error: the message} (guardedResult).
func (fn scannerFunc) guarded() string {
	return "function(...a) { try { return {value: globalThis.poppyMarks." + fn.name + "(...a)}; } catch (e) { return {error: String(e.message)}; } }"
}

// callScanner calls fn in the frame's [World] with args and decodes its
// value into res.
func callScanner(ctx context.Context, f browser.Frame, fn scannerFunc, res any, args ...any) error {
	return f.Call(ctx, World, fn.call(), res, args...)
}

// guardedResult is what a guarded call returns: the message the function
// threw ("stale element" for a gone element), or its value.
type guardedResult[T any] struct {
	Error string `json:"error"`
	Value T      `json:"value"`
}

// callGuarded calls fn (see [scannerFunc.guarded]) and returns its value;
// op names the call in an error, and a gone element is [ErrStale].
func callGuarded[T any](ctx context.Context, f browser.Frame, fn scannerFunc, op string, args ...any) (T, error) {
	var r guardedResult[T]
	if err := f.Call(ctx, World, fn.guarded(), &r, args...); err != nil {
		return r.Value, fmt.Errorf("%s: %w", op, err)
	}
	switch r.Error {
	case "":
		return r.Value, nil
	case "stale element":
		return r.Value, fmt.Errorf("%s: %w", op, ErrStale)
	default:
		return r.Value, fmt.Errorf("%s: %s", op, r.Error)
	}
}
