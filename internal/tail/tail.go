// Package tail keeps the last bytes a child process writes, so that an
// error can quote its last line (Chromium's failure to start, a credential
// command's complaint) without holding all of its output.
package tail

import (
	"strings"
	"sync"
)

// Buffer is an io.Writer that keeps the last Max bytes written to it. Its
// zero value keeps nothing; set Max. It is safe for concurrent use (a
// process's stdout and stderr may share it).
type Buffer struct {
	Max int

	mu  sync.Mutex
	buf []byte
}

// Write keeps the tail of p; it never fails.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(p) >= b.Max {
		b.buf = append(b.buf[:0], p[len(p)-b.Max:]...)
		return len(p), nil
	}
	if extra := len(b.buf) + len(p) - b.Max; extra > 0 {
		b.buf = append(b.buf[:0], b.buf[extra:]...)
	}
	b.buf = append(b.buf, p...)
	return len(p), nil
}

// String is what the buffer holds.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}

// LastLine is the last non-blank line kept, trimmed; "" when there is none.
func (b *Buffer) LastLine() string {
	var last string
	for l := range strings.Lines(b.String()) {
		if t := strings.TrimSpace(l); t != "" {
			last = t
		}
	}
	return last
}
