package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxLine bounds one stdio line, as the go-sdk's own stdio transport does.
const maxLine = mcp.DefaultMaxLineLength

// lockedWriter serialises whole writes: the SDK writes one message per
// Write, and the screen's error replies go between them, never inside.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (*lockedWriter) Close() error { return nil }

// replyError writes one JSON-RPC error response (id nil is JSON null).
func (l *lockedWriter) replyError(id any, code int64, msg string) {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": jsonrpc.Error{Code: code, Message: msg}})
	_, _ = l.Write(append(b, '\n'))
}

// screen passes the lines of r that are JSON-RPC messages to the returned
// reader and answers every other line itself on w: a line that is not JSON
// gets a parse error (-32700), JSON that is not a JSON-RPC message an
// Invalid Request (-32600), a line over maxLine a parse error. The go-sdk's
// stdio transport ends the session at the first such line; the server must
// go on. A read error of r ends the returned reader as EOF, so the SDK
// ends the session as it does when the client hangs up.
//
// The goroutine reading r ends when r does; a read of stdin cannot be
// interrupted, so it is the one goroutine nobody waits for (the process
// exits under it).
func screen(r io.Reader, w *lockedWriter) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		br := bufio.NewReaderSize(r, 64<<10)
		for {
			line, tooLong, err := readLine(br)
			switch {
			case tooLong:
				w.replyError(nil, jsonrpc.CodeParseError, "parse error: the line is longer than the server reads (16 MiB)")
			case len(bytes.TrimSpace(line)) == 0:
			default:
				// Trimmed: the SDK's reader ends the session on anything
				// but a line end after a message.
				if id, code, msg, ok := checkMessage(line); !ok {
					w.replyError(id, code, msg)
				} else if _, werr := pw.Write(append(bytes.TrimSpace(line), '\n')); werr != nil {
					return // the session has closed
				}
			}
			if err != nil {
				pw.Close()
				return
			}
		}
	}()
	return pr
}

// readLine reads one line without its end, or reports it too long (and
// skips it).
func readLine(br *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > maxLine {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), tooLong, err
	}
}

// checkMessage says whether line is one JSON-RPC message or a batch of them;
// otherwise it returns the error to answer, with the message's id when
// one can be read.
func checkMessage(line []byte) (id any, code int64, msg string, ok bool) {
	if !json.Valid(line) {
		return nil, jsonrpc.CodeParseError, "parse error: the line is not JSON; send one JSON-RPC message per line", false
	}
	var msgs []json.RawMessage // a fresh slice: RawMessage decodes into its elements' storage
	if t := bytes.TrimSpace(line); t[0] == '[' {
		if json.Unmarshal(t, &msgs) != nil || len(msgs) == 0 {
			return nil, jsonrpc.CodeInvalidRequest, "invalid request: an empty or malformed batch", false
		}
	} else {
		msgs = []json.RawMessage{line}
	}
	seen := map[string]bool{} // the calls' ids: the SDK reads on into a batch it then refuses for a repeated one
	for _, m := range msgs {
		dm, err := jsonrpc.DecodeMessage(m)
		if req, ok := dm.(*jsonrpc.Request); err == nil && ok && req.IsCall() && len(msgs) > 1 {
			if seen[idKey(req.ID)] {
				return nil, jsonrpc.CodeInvalidRequest, "invalid request: a batch that repeats a request id", false
			}
			seen[idKey(req.ID)] = true
		}
		if err != nil {
			var probe struct {
				ID any `json:"id"`
			}
			_ = json.Unmarshal(m, &probe)
			if _, err := jsonrpc.MakeID(probe.ID); err != nil {
				probe.ID = nil
			}
			return probe.ID, jsonrpc.CodeInvalidRequest, "invalid request: not a JSON-RPC 2.0 message", false
		}
	}
	return nil, 0, "", true
}
