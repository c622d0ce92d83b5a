package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/poppy-browser/poppy-browser/agent"
	"github.com/poppy-browser/poppy-browser/agent/chat"
	"github.com/poppy-browser/poppy-browser/internal/secret"
	"github.com/poppy-browser/poppy-browser/testsite/demoscript"
)

// maxStepsLimit bounds --max-steps.
const maxStepsLimit = 200

// modelFlags choose the built-in agent's model.
type modelFlags struct {
	name     string
	baseURL  string
	model    string
	keyFile  string
	maxSteps int
}

func (f *modelFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.name, "model", "scripted", "the agent's model: scripted (deterministic, no key) or openai (any OpenAI-compatible /chat/completions endpoint)")
	fs.StringVar(&f.baseURL, "openai-base-url", "", "base URL of the OpenAI-compatible endpoint (default $OPENAI_BASE_URL, else "+chat.DefaultBaseURL+")")
	fs.StringVar(&f.model, "openai-model", "", "model name at the endpoint (default $OPENAI_MODEL)")
	fs.StringVar(&f.keyFile, "openai-key-file", "", "file holding the API key (default: $OPENAI_API_KEY); the key is never printed or logged")
	fs.IntVar(&f.maxSteps, "max-steps", agent.DefaultMaxSteps, fmt.Sprintf("step limit of the task (at most %d)", maxStepsLimit))
}

// build returns the model for a task. getenv reads the environment.
func (f *modelFlags) build(task string, getenv func(string) string) (agent.Model, error) {
	if f.maxSteps < 1 || f.maxSteps > maxStepsLimit {
		return nil, fmt.Errorf("--max-steps must be between 1 and %d", maxStepsLimit)
	}
	switch f.name {
	case "scripted":
		return agent.NewScripted(demoscript.CheckIn(task)), nil
	case "openai":
		opts := &chat.Options{BaseURL: f.baseURL, Model: f.model, MaxCalls: f.maxSteps}
		if opts.BaseURL == "" {
			opts.BaseURL = getenv("OPENAI_BASE_URL")
		}
		if opts.Model == "" {
			opts.Model = getenv("OPENAI_MODEL")
		}
		if f.keyFile != "" {
			b, err := os.ReadFile(f.keyFile)
			if err != nil {
				return nil, errors.New("reading --openai-key-file: cannot read the file")
			}
			opts.APIKey = secret.New(strings.TrimSpace(string(b)))
		} else {
			opts.APIKey = secret.New(getenv("OPENAI_API_KEY"))
		}
		return chat.New(opts)
	default:
		return nil, fmt.Errorf("--model %q is not scripted or openai", f.name)
	}
}
