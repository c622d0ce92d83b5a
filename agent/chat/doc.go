// Package chat is the agent loop's model on any OpenAI-compatible
// /chat/completions endpoint, through the openai-go client library.
//
// Each step is one request: two messages (the system prompt and one user
// message), one tool (AgentOutput) named in tool_choice,
// parallel_tool_calls false, and no streaming. The reply's content and tool
// calls go back to the loop unparsed; its tolerant parser reads them.
//
// # Secrets
//
// The API key is a [Secret]: it prints, formats, marshals and logs as
// "[redacted]". It is sent only in the Authorization header of requests to
// the configured base URL, and scrubbed from every error this package
// returns, so it never reaches the browser, a log, the audit log or an
// error message.
//
// # Limits
//
// A request larger than [Options.MaxRequestBytes] is not sent; a response
// body larger than [Options.MaxResponseBytes] is cut off with an error; a
// [Model] makes at most [Options.MaxCalls] calls in its life.
//
// A [Model] is safe for concurrent use.
package chat
