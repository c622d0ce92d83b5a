package check

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"gopkg.in/yaml.v3"
)

// ConfigFile is the config file check reads from the current folder (the
// repository's root, in CI): its keys are check's flags without the
// dashes, with "pages" for the URLs and "flags" for more flags as written
// on the command line. The command line wins over the file for a flag
// with one value; repeatable flags add up.
//
//	pages: [https://staging.example/, https://staging.example/checkout]
//	crawl: 50
//	exclude: ["/blog/*"]
//	fail-on: warning
//	baseline: .poppy/check-baseline.json
//	sarif: check.sarif
//	source-root: ["https://staging.example/=templates"]
const ConfigFile = "poppy-check.yaml"

// Config is what a config file holds, as flags.
type Config struct {
	Pages []string
	// Args are the file's flags as command-line arguments, to parse
	// before the command line's own.
	Args []string
}

// LoadConfig reads the config file at path; a missing file is no config
// (nil, nil). known says whether a flag name exists, so that a misspelt
// key is an error naming it.
func LoadConfig(path string, known func(name string) bool) (*Config, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return ParseConfig(path, data, known)
}

// ParseConfig reads a config file's contents (see [ConfigFile]).
func ParseConfig(path string, data []byte, known func(name string) bool) (*Config, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return &Config{}, nil
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(doc.Content) == 0 {
		return &Config{}, nil
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: want a mapping of flags to values", path)
	}
	cfg := &Config{}
	var keys []string
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		name := k.Value
		if slices.Contains(keys, name) {
			return nil, fmt.Errorf("%s:%d: %q is given twice", path, k.Line, name)
		}
		keys = append(keys, name)
		values, err := scalars(v)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %s: %w", path, k.Line, name, err)
		}
		switch name {
		case "pages":
			cfg.Pages = append(cfg.Pages, values...)
		case "flags":
			cfg.Args = append(cfg.Args, values...)
		default:
			if !known(name) {
				return nil, fmt.Errorf("%s:%d: no flag --%s", path, k.Line, name)
			}
			for _, val := range values {
				cfg.Args = append(cfg.Args, "--"+name+"="+val)
			}
		}
	}
	return cfg, nil
}

// scalars is a value or a list of values, as strings.
func scalars(n *yaml.Node) ([]string, error) {
	switch n.Kind {
	case yaml.ScalarNode:
		return []string{n.Value}, nil
	case yaml.SequenceNode:
		var out []string
		for _, c := range n.Content {
			if c.Kind != yaml.ScalarNode {
				return nil, errors.New("want a value or a list of values")
			}
			out = append(out, c.Value)
		}
		return out, nil
	}
	return nil, errors.New("want a value or a list of values")
}
