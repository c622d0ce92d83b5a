package demoscript

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/poppy-browser/poppy-browser/agent"
	"github.com/poppy-browser/poppy-browser/agent/chat"
	"github.com/poppy-browser/poppy-browser/internal/cli"
	"github.com/poppy-browser/poppy-browser/internal/secret"
)

// maxStepsLimit bounds --max-steps.
const maxStepsLimit = 200

// ModelFlags choose the built-in agent's model (demo and run): the
// scripted model of this package, or a real one through agent/chat.
type ModelFlags struct {
	name     string
	baseURL  string
	model    string
	keyFile  string
	maxSteps int
}

// Register adds the flags to fs.
func (f *ModelFlags) Register(fs *flag.FlagSet) {
	fs.StringVar(&f.name, "model", "scripted", "the agent's model: scripted (deterministic, no key; it has a script only for "+Tasks+" and turns any other task away at once) or openai (any OpenAI-compatible /chat/completions endpoint, any task)")
	fs.StringVar(&f.baseURL, "openai-base-url", "", "base URL of the OpenAI-compatible endpoint (default $OPENAI_BASE_URL, else "+chat.DefaultBaseURL+")")
	fs.StringVar(&f.model, "openai-model", "", "model name at the endpoint (default $OPENAI_MODEL)")
	fs.StringVar(&f.keyFile, "openai-key-file", "", "file holding the API key (default: $OPENAI_API_KEY); the key is never printed or logged")
	fs.IntVar(&f.maxSteps, "max-steps", agent.DefaultMaxSteps, fmt.Sprintf("step limit of the task (at most %d)", maxStepsLimit))
}

// Build returns the model for a task of the subcommand cmd. A bad flag
// value, or a task the scripted model has no script for, is a usage
// error. getenv reads the environment.
func (f *ModelFlags) Build(cmd, task string, getenv func(string) string) (agent.Model, error) {
	if f.maxSteps < 1 || f.maxSteps > maxStepsLimit {
		return nil, cli.UsageErrorf("%s: --max-steps %d: give a number from 1 to %d", cmd, f.maxSteps, maxStepsLimit)
	}
	switch f.name {
	case "scripted":
		script, ok := For(task)
		if !ok {
			return nil, cli.UsageErrorf("%s: the scripted model has a script only for %s; give any other task to a real model with --model openai", cmd, Tasks)
		}
		return agent.NewScripted(script), nil
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
				return nil, fmt.Errorf("%s: reading --openai-key-file: cannot read the file", cmd)
			}
			opts.APIKey = secret.New(strings.TrimSpace(string(b)))
		} else {
			opts.APIKey = secret.New(getenv("OPENAI_API_KEY"))
		}
		m, err := chat.New(opts)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", cmd, err)
		}
		return m, nil
	default:
		return nil, cli.UsageErrorf("%s: --model %q: give scripted or openai", cmd, f.name)
	}
}

// MaxSteps is the task's step limit (--max-steps).
func (f *ModelFlags) MaxSteps() int { return f.maxSteps }
