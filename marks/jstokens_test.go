package marks

import (
	"fmt"
	"strings"
)

// A jsToken is a token of JavaScript source as TestScannerImports needs
// them: names and punctuation; strings, numbers, regular expressions and
// the text of template literals are single opaque tokens, comments none.
type jsToken struct {
	kind byte // 'a' name, 'p' punctuation, 's' string, number, regexp or template text
	text string
	line int
}

// jsPuncts are the punctuators read as one token where it matters: =>,
// spread, optional chaining. Any other is read a character at a time.
var jsPuncts = []string{"=>", "...", "?."}

// jsTokenize splits src into tokens. It knows enough JavaScript for the
// scanner's files: nested template literals, regular expressions after
// an operator or a keyword. A file's brackets need not balance: the
// scanner's function opens in one file and closes in another.
func jsTokenize(src string) ([]jsToken, error) {
	t := jsTokenizer{src: src, line: 1}
	for t.i < len(t.src) {
		if err := t.next(); err != nil {
			return nil, fmt.Errorf("line %d: %w", t.line, err)
		}
	}
	return t.out, nil
}

type jsTokenizer struct {
	src    string
	i      int
	line   int
	out    []jsToken
	braces []bool // open braces: true for a template literal's ${
}

func (t *jsTokenizer) emit(kind byte, text string) {
	t.out = append(t.out, jsToken{kind, text, t.line})
}

func (t *jsTokenizer) next() error {
	if skipped, err := t.space(); skipped || err != nil {
		return err
	}
	switch c := t.src[t.i]; {
	case c == '"' || c == '\'':
		return t.quoted(c)
	case c == '`':
		t.i++
		return t.template()
	case c == '/' && t.regexpAllowed():
		return t.regexp()
	case isNameStart(c) || c >= 0x80:
		t.run('a', false)
	case isDigit(c):
		t.run('s', true)
	default:
		return t.punct(t.src[t.i:])
	}
	return nil
}

// space skips a blank or a comment, if one comes next.
func (t *jsTokenizer) space() (bool, error) {
	rest := t.src[t.i:]
	switch {
	case rest[0] == '\n':
		t.line++
		t.i++
	case rest[0] == ' ' || rest[0] == '\t' || rest[0] == '\r':
		t.i++
	case strings.HasPrefix(rest, "//"):
		n := strings.IndexByte(rest, '\n')
		if n < 0 {
			n = len(rest)
		}
		t.i += n
	case strings.HasPrefix(rest, "/*"):
		n := strings.Index(rest, "*/")
		if n < 0 {
			return false, fmt.Errorf("a comment is not closed")
		}
		t.line += strings.Count(rest[:n], "\n")
		t.i += n + 2
	default:
		return false, nil
	}
	return true, nil
}

// run reads a name, or a number when dots continue it.
func (t *jsTokenizer) run(kind byte, dots bool) {
	n := t.i + 1
	for n < len(t.src) && (isNameStart(t.src[n]) || isDigit(t.src[n]) || t.src[n] >= 0x80 || dots && t.src[n] == '.') {
		n++
	}
	t.emit(kind, t.src[t.i:n])
	t.i = n
}

func (t *jsTokenizer) punct(rest string) error {
	for _, p := range jsPuncts {
		if strings.HasPrefix(rest, p) {
			t.emit('p', p)
			t.i += len(p)
			return nil
		}
	}
	c := rest[0]
	switch c {
	case '{':
		t.braces = append(t.braces, false)
	case '}': // exports.js closes the brace prelude.js opens
		if n := len(t.braces); n > 0 {
			template := t.braces[n-1]
			t.braces = t.braces[:n-1]
			if template {
				t.i++
				return t.template()
			}
		}
	}
	t.emit('p', string(c))
	t.i++
	return nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isNameStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '$'
}

// quoted reads a string literal.
func (t *jsTokenizer) quoted(q byte) error {
	for j := t.i + 1; j < len(t.src); j++ {
		switch t.src[j] {
		case '\\':
			j++
		case '\n':
			return fmt.Errorf("a string is not closed")
		case q:
			t.emit('s', t.src[t.i:j+1])
			t.i = j + 1
			return nil
		}
	}
	return fmt.Errorf("a string is not closed")
}

// template reads a template literal's text up to its end or to a ${,
// whose expression is read as tokens until the } that closes it.
func (t *jsTokenizer) template() error {
	for j := t.i; j < len(t.src); j++ {
		switch {
		case t.src[j] == '\\':
			j++
		case t.src[j] == '`':
			t.emit('s', t.src[t.i:j])
			t.i = j + 1
			return nil
		case strings.HasPrefix(t.src[j:], "${"):
			t.emit('s', t.src[t.i:j])
			t.braces = append(t.braces, true)
			t.i = j + 2
			return nil
		case t.src[j] == '\n':
			t.line++
		}
	}
	return fmt.Errorf("a template literal is not closed")
}

// regexpAllowed says a / starts a regular expression: it comes where an
// operand is due, after punctuation other than a closing bracket, or
// after a keyword such as return.
func (t *jsTokenizer) regexpAllowed() bool {
	if len(t.out) == 0 {
		return true
	}
	last := t.out[len(t.out)-1]
	switch last.kind {
	case 'p':
		return last.text != ")" && last.text != "]" && last.text != "}"
	case 'a':
		return jsKeywords[last.text]
	}
	return false
}

func (t *jsTokenizer) regexp() error {
	class := false
	for j := t.i + 1; j < len(t.src); j++ {
		switch c := t.src[j]; {
		case c == '\\':
			j++
		case c == '\n':
			return fmt.Errorf("a regular expression is not closed")
		case c == '[':
			class = true
		case c == ']':
			class = false
		case c == '/' && !class:
			j++
			for j < len(t.src) && isNameStart(t.src[j]) {
				j++ // flags
			}
			t.emit('s', t.src[t.i:j])
			t.i = j
			return nil
		}
	}
	return fmt.Errorf("a regular expression is not closed")
}

// jsKeywords are the reserved words and the literals that are no names
// a fragment defines or imports.
var jsKeywords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`break case catch class const continue debugger default delete do else
		export extends finally for function if import in instanceof new return super switch this
		throw try typeof var void while with yield let static async await of true false null
		undefined NaN Infinity arguments`) {
		jsKeywords[w] = true
	}
}
