package agent

import "context"

// ToolName is the one tool the loop offers the model each step.
const ToolName = "AgentOutput"

// Model is what the loop asks for its next step: one call, one answer. A
// Model sees only the [ModelRequest]; it never reaches the browser.
type Model interface {
	// Complete answers one request. It must honour ctx.
	Complete(ctx context.Context, req *ModelRequest) (*ModelReply, error)
}

// ModelFunc adapts a function to [Model].
type ModelFunc func(ctx context.Context, req *ModelRequest) (*ModelReply, error)

// Complete calls f.
func (f ModelFunc) Complete(ctx context.Context, req *ModelRequest) (*ModelReply, error) {
	return f(ctx, req)
}

// ModelRequest is one step's request: a system prompt, one user message
// (task, step counter, current time, history, page), and the one tool the
// model must call, [ToolName], whose parameters are a JSON schema.
type ModelRequest struct {
	System string
	User   string
	Tool   ToolSpec
	// UserSaid is the User's own words to the agent, left when they handed
	// back, cancelled or declined (cleaned by package control), sent once,
	// as a user turn of its own after User and labelled as the User's,
	// never mixed with the page; "" for none.
	UserSaid string
}

// UserSaidTurn is the user turn that carries [ModelRequest.UserSaid]: the
// message as one line inside <user_message>, with <, > and & written as
// entities and every line break a space, so that nothing in it can close
// the wrapper or start a line of its own (a fake "System:" line).
func UserSaidTurn(said string) string {
	return "The User (a person, not a web page) left you this message when they gave the browser back (<, > and & in it are written &lt;, &gt; and &amp;):\n<user_message>\n" +
		escapeLine(said) + "\n</user_message>"
}

// ToolSpec is a function tool offered to the model.
type ToolSpec struct {
	Name        string
	Description string
	// Parameters is the JSON schema of the tool's arguments, as a JSON
	// object.
	Parameters map[string]any
}

// ModelReply is what the model answered, before the tolerant parser reads
// it: the message content and the tool calls, arguments as sent.
type ModelReply struct {
	Content   string
	ToolCalls []ToolCall
}

// ToolCall is one tool call of a reply.
type ToolCall struct {
	Name      string
	Arguments string
}
