package main

import (
	"context"

	"github.com/poppy-browser/poppy-browser/mcpserver"
	"github.com/poppy-browser/poppy-browser/supervisor"
)

// openFor opens the runtime of an MCP session for the subject that began
// it (none without OAuth).
func openFor(ctx context.Context, rt *supervisor.Server, id string) (*supervisor.Session, error) {
	if sub, ok := mcpserver.SubjectOf(ctx); ok {
		return rt.NewSessionFor(ctx, id, sub.Sub)
	}
	return rt.NewSession(ctx, id)
}
