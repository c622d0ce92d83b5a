package mcpserver_test

import (
	"context"
	"fmt"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/gate"
	"github.com/poppy-browser/poppy-browser/mcpserver"
)

// A model asks for the User over MCP: the offer answers at once, and while
// the User holds control every browser tool is refused.
func ExampleNew() {
	ctx := context.Background()
	ctl := control.New(nil)
	g := gate.New(&gate.Options{Control: ctl}) // no page yet
	srv := mcpserver.New(g, nil)

	st, ct := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(ctx, st, nil); err != nil {
		log.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "model"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "browser_request_user_control",
		Arguments: map[string]any{"reason": "The airline asks you to check in yourself."}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.StructuredContent.(map[string]any)["offer"].(map[string]any)["id"])

	_ = ctl.User().Take(ctx) // the User, through their own channel
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "browser_click", Arguments: map[string]any{"ref": "e1"}})
	if err != nil {
		log.Fatal(err)
	}
	out := res.StructuredContent.(map[string]any)
	fmt.Println(out["outcome"], out["reason"], res.IsError)
	// Output:
	// offer-1
	// denied user_has_control false
}
