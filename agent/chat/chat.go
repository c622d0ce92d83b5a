package chat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/poppy-browser/poppy-browser/agent"
	"github.com/poppy-browser/poppy-browser/internal/secret"
)

// DefaultBaseURL is OpenAI's API, used when [Options.BaseURL] is empty.
const DefaultBaseURL = "https://api.openai.com/v1"

// Secret is the API key: the program's one redacting type
// ([secret.Value]); every way of printing it gives "[redacted]".
type Secret = secret.Value

// Options configures a [Model]. Model is required.
type Options struct {
	// BaseURL is the endpoint's base, such as http://127.0.0.1:8080/v1;
	// requests go to BaseURL + "/chat/completions". Empty means
	// [DefaultBaseURL].
	BaseURL string
	// Model is the model's name at the endpoint.
	Model string
	// APIKey is sent as "Authorization: Bearer KEY". Empty sends none
	// (local servers).
	APIKey Secret
	// HTTPClient makes the requests. Nil means a client with a 2-minute
	// timeout.
	HTTPClient *http.Client
	// MaxRequestBytes bounds one request's prompt and tool schema. 0 means
	// 256 KiB.
	MaxRequestBytes int
	// MaxResponseBytes bounds one response body. 0 means 1 MiB.
	MaxResponseBytes int64
	// MaxCalls bounds the calls of the model's life (the step budget). 0
	// means 200.
	MaxCalls int
	// MaxRetries is how often a failed call is retried. 0 means none.
	MaxRetries int
}

// Model is an [agent.Model] on an OpenAI-compatible endpoint.
type Model struct {
	opts  Options
	svc   openai.ChatCompletionService
	calls atomic.Int64
}

// New returns a model. It makes no request.
func New(opts *Options) (*Model, error) {
	o := *opts
	if o.Model == "" {
		return nil, errors.New("chat model: no model name (set --openai-model or OPENAI_MODEL)")
	}
	if o.BaseURL == "" {
		o.BaseURL = DefaultBaseURL
	}
	if !strings.HasPrefix(o.BaseURL, "http://") && !strings.HasPrefix(o.BaseURL, "https://") {
		return nil, errors.New("chat model: the base URL must be http or https")
	}
	if o.MaxRequestBytes <= 0 {
		o.MaxRequestBytes = 256 << 10
	}
	if o.MaxResponseBytes <= 0 {
		o.MaxResponseBytes = 1 << 20
	}
	if o.MaxCalls <= 0 {
		o.MaxCalls = 200
	}
	hc := o.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: 2 * time.Minute}
	}
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	limited := *hc
	limited.Transport = limitBody{base: base, max: o.MaxResponseBytes}
	// The service is built from explicit options only: nothing is read
	// from the environment here (cmd does that, on purpose).
	reqOpts := []option.RequestOption{
		option.WithHTTPClient(&limited),
		option.WithBaseURL(strings.TrimRight(o.BaseURL, "/") + "/"),
		option.WithMaxRetries(o.MaxRetries),
	}
	if !o.APIKey.IsZero() {
		reqOpts = append(reqOpts, option.WithAPIKey(o.APIKey.Reveal()))
	}
	return &Model{opts: o, svc: openai.NewChatCompletionService(reqOpts...)}, nil
}

// Complete sends one request: two messages, one tool named in tool_choice,
// parallel_tool_calls false, no streaming.
func (m *Model) Complete(ctx context.Context, req *agent.ModelRequest) (*agent.ModelReply, error) {
	params, err := json.Marshal(req.Tool.Parameters)
	if err != nil {
		return nil, fmt.Errorf("chat model: tool schema: %w", err)
	}
	if size := len(req.System) + len(req.User) + len(req.UserSaid) + len(params) + len(req.Tool.Description); size > m.opts.MaxRequestBytes {
		return nil, fmt.Errorf("chat model: the request is %d bytes, more than the %d allowed", size, m.opts.MaxRequestBytes)
	}
	if n := m.calls.Add(1); n > int64(m.opts.MaxCalls) {
		return nil, fmt.Errorf("chat model: the budget of %d model calls is used up", m.opts.MaxCalls)
	}
	body := openai.ChatCompletionNewParams{
		Model: m.opts.Model,
		Messages: []openai.ChatCompletionMessageParamUnion{
			openai.SystemMessage(req.System),
			openai.UserMessage(req.User),
		},
		Tools: []openai.ChatCompletionToolUnionParam{
			openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{
				Name:        req.Tool.Name,
				Description: openai.String(req.Tool.Description),
				Parameters:  openai.FunctionParameters(req.Tool.Parameters),
			}),
		},
		ToolChoice:        openai.ToolChoiceOptionFunctionToolChoice(openai.ChatCompletionNamedToolChoiceFunctionParam{Name: req.Tool.Name}),
		ParallelToolCalls: openai.Bool(false),
	}
	if req.UserSaid != "" {
		body.Messages = append(body.Messages, openai.UserMessage(agent.UserSaidTurn(req.UserSaid)))
	}
	res, err := m.svc.New(ctx, body)
	if err != nil {
		return nil, m.scrub(err)
	}
	if len(res.Choices) == 0 {
		return nil, errors.New("chat model: the reply has no choices")
	}
	msg := res.Choices[0].Message
	out := &agent.ModelReply{Content: msg.Content}
	for _, tc := range msg.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, agent.ToolCall{Name: tc.Function.Name, Arguments: tc.Function.Arguments})
	}
	return out, nil
}

// scrub turns an error into one line without the key.
func (m *Model) scrub(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("chat model: %w", err)
	}
	s := strings.Join(strings.Fields(err.Error()), " ")
	if k := m.opts.APIKey.Reveal(); k != "" {
		s = strings.ReplaceAll(s, k, secret.Redacted)
	}
	if r := []rune(s); len(r) > 300 {
		s = string(r[:300]) + "…"
	}
	return errors.New("chat model: " + s)
}

// limitBody cuts response bodies off at max bytes.
type limitBody struct {
	base http.RoundTripper
	max  int64
}

func (l limitBody) RoundTrip(r *http.Request) (*http.Response, error) {
	res, err := l.base.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	res.Body = &capped{rc: res.Body, left: l.max}
	return res, nil
}

type capped struct {
	rc   io.ReadCloser
	left int64
}

func (c *capped) Read(p []byte) (int, error) {
	if c.left <= 0 {
		var one [1]byte
		if n, err := c.rc.Read(one[:]); n == 0 && err != nil {
			return 0, err
		}
		return 0, errors.New("the response is larger than allowed")
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.rc.Read(p)
	c.left -= int64(n)
	return n, err
}

func (c *capped) Close() error { return c.rc.Close() }
