package mcpserver

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// logLevels are the levels MCP names (RFC 5424's, lower case).
var logLevels = map[mcp.LoggingLevel]bool{
	"debug": true, "info": true, "notice": true, "warning": true,
	"error": true, "critical": true, "alert": true, "emergency": true,
}

// checkLogLevel answers a logging/setLevel whose level MCP does not name
// with invalid params (-32602), instead of storing a level no message
// compares with.
func checkLogLevel(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "logging/setLevel" {
			p, _ := req.GetParams().(*mcp.SetLoggingLevelParams)
			if p == nil || !logLevels[p.Level] {
				level := mcp.LoggingLevel("")
				if p != nil {
					level = p.Level
				}
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
					Message: fmt.Sprintf("unknown logging level %q: give debug, info, notice, warning, error, critical, alert or emergency", clipLevel(level))}
			}
		}
		return next(ctx, method, req)
	}
}

// clipLevel bounds a level quoted back to the client.
func clipLevel(l mcp.LoggingLevel) string {
	if len(l) > 40 {
		return string(l[:40]) + "…"
	}
	return string(l)
}
