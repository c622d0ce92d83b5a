package mcpserver

import (
	"context"
	"fmt"
	"net/http"
	"runtime/debug"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/gate"
	"github.com/poppy-browser/poppy-browser/spec"
)

// internalMessage is what a model reads when the runtime failed on its
// call.
const internalMessage = "The runtime failed on this call (an internal error, logged for its developers); the session goes on. Take a snapshot and try another way."

// recoverCalls turns a panic in any handler of a request or notification
// into an answer: a tool call gets a failed result (reason internal,
// isError), any other request a JSON-RPC internal error; the panic is
// logged with its stack. A bug in one call must not end the process, and
// over HTTP every other session with it.
func (s *Server) recoverCalls(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			s.opts.Logger.Error("panic in an MCP handler", "method", method, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			if method == "tools/call" {
				res, err = result(gate.Result{Outcome: spec.OutcomeFailed, Reason: spec.ReasonInternal, Message: internalMessage}, false), nil
				return
			}
			res, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error: the server failed on this request; the session goes on"}
		}()
		return next(ctx, method, req)
	}
}

// recoverHTTP answers a panic in an HTTP handler with a JSON-RPC internal
// error (status 500) and logs it with its stack, instead of net/http's
// dropped connection. http.ErrAbortHandler is net/http's own signal and
// passes on.
func (s *Server) recoverHTTP(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.opts.Logger.Error("panic in an HTTP handler", "path", r.URL.Path, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			writeRPCError(w, http.StatusInternalServerError, nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
				Message: "internal error: the server failed on this request; the session goes on"})
		}()
		next.ServeHTTP(w, r)
	})
}
