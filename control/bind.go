package control

import (
	"fmt"
	"sync"
)

// parts are the one-per-Control parts built on a Control (by name, such
// as "gate"); a second of a kind is refused.
type parts struct {
	mu    sync.Mutex
	built map[string]bool
}

// Bind records that the part named part (the agent's gate) is built on
// c, and refuses a second: a Control has one gate, so its refs, epoch and
// input lease have one keeper. It returns an error naming the part.
func (c *Control) Bind(part string) error {
	c.parts.mu.Lock()
	defer c.parts.mu.Unlock()
	if c.parts.built[part] {
		return fmt.Errorf("control: a %s is already built on this control (one per control)", part)
	}
	if c.parts.built == nil {
		c.parts.built = map[string]bool{}
	}
	c.parts.built[part] = true
	return nil
}
