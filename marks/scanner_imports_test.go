package marks

import (
	"slices"
	"strings"
	"testing"
)

// scannerGlobals are the names of the isolated world (JavaScript's and
// the DOM's) that the scanner's files use without defining them.
var scannerGlobals = strings.Fields(`Array DataTransfer Date Document DocumentFragment Element Error HTMLAnchorElement
	HTMLButtonElement HTMLDetailsElement HTMLFormElement HTMLIFrameElement HTMLInputElement
	HTMLLabelElement HTMLSelectElement HTMLSlotElement HTMLTextAreaElement JSON Map Math
	Event MouseEvent MutationObserver Node Number Object Set ShadowRoot WeakMap WeakSet
	addEventListener document getComputedStyle globalThis innerHeight innerWidth location
	parseInt performance queueMicrotask Symbol window`)

// TestScannerImports holds the scanner's files (js/scanner/, joined in
// the order of scannerParts) to their boundaries, reading their source
// without a browser: each file but exports.js defines one namespace, and
// uses only the names it defines, the world's globals (scannerGlobals),
// and what it imports from the namespaces of earlier files, either in a
// const line at its top (const { read, R_BOX } = Memo;) or as
// Namespace.name. Every imported name is exported by its namespace and
// used; every exported name is used by a later file.
func TestScannerImports(t *testing.T) {
	frags := readFragments(t)
	c := importCheck{t: t, frags: frags, spaces: map[string]*jsFragment{}, used: map[string]bool{}, globals: map[string]int{}}
	for _, g := range scannerGlobals {
		c.globals[g] = 0
	}
	for _, f := range frags {
		c.uses(f)
		c.qualified(f)
		c.imports(f)
		if f.namespace != "" {
			c.spaces[f.namespace] = f
		}
	}
	for _, f := range frags {
		for _, name := range f.exports {
			if !c.used[f.namespace+"."+name] {
				t.Errorf("%s: %s exports %s, which no later file uses", f.file, f.namespace, name)
			}
		}
	}
	for _, g := range scannerGlobals {
		if c.globals[g] == 0 {
			t.Errorf("scannerGlobals lists %s, which no file uses", g)
		}
	}
}

// importCheck is TestScannerImports going through the files in order.
type importCheck struct {
	t       *testing.T
	frags   []*jsFragment
	spaces  map[string]*jsFragment // the namespaces of the files read so far
	used    map[string]bool        // Namespace.name imported by some file
	globals map[string]int         // uses of each of scannerGlobals
}

// uses checks the names f reads.
func (c *importCheck) uses(f *jsFragment) {
	for _, i := range f.uses {
		u := f.toks[i]
		_, global := c.globals[u.text]
		switch {
		case f.defines[u.text] || f.imported[u.text] != "":
		case c.spaces[u.text] != nil:
			c.t.Errorf("%s:%d: namespace %s is used whole, not as %[3]s.name or in an import line", f.file, u.line, u.text)
		case global:
			c.globals[u.text]++
		case namespaceOf(c.frags, u.text) != nil:
			c.t.Errorf("%s:%d: %s is a later file's namespace: an earlier file cannot import from it", f.file, u.line, u.text)
		default:
			c.t.Errorf("%s:%d: %s is neither defined in the file, nor imported from an earlier file's namespace, nor in scannerGlobals", f.file, u.line, u.text)
		}
	}
}

// qualified checks the names f reads as Namespace.name.
func (c *importCheck) qualified(f *jsFragment) {
	for _, q := range f.qualified {
		ns := c.spaces[q.space]
		switch {
		case ns == nil && q.space == f.namespace:
			c.t.Errorf("%s:%d: %s.%s: a file uses its own names directly", f.file, q.line, q.space, q.name)
		case ns == nil:
			c.t.Errorf("%s:%d: %s is not the namespace of an earlier file", f.file, q.line, q.space)
		case !slices.Contains(ns.exports, q.name):
			c.t.Errorf("%s:%d: %s does not export %s", f.file, q.line, q.space, q.name)
		default:
			c.used[q.space+"."+q.name] = true
		}
	}
}

// imports checks the names f imports in const lines.
func (c *importCheck) imports(f *jsFragment) {
	for name, space := range f.imported {
		ns := c.spaces[space]
		switch {
		case ns == nil:
			c.t.Errorf("%s: %s is imported from %s, not an earlier file's namespace", f.file, name, space)
		case !slices.Contains(ns.exports, name):
			c.t.Errorf("%s: %s is imported from %s, which does not export it", f.file, name, space)
		case f.count[name] < 2:
			c.t.Errorf("%s: %s is imported from %s and not used", f.file, name, space)
		default:
			c.used[space+"."+name] = true
		}
	}
}

// readFragments reads and parses the scanner's files in order, and
// checks that each but the last defines one namespace.
func readFragments(t *testing.T) []*jsFragment {
	t.Helper()
	var frags []*jsFragment
	for i, name := range scannerParts {
		src, err := scannerFiles.ReadFile("js/scanner/" + name)
		if err != nil {
			t.Fatal(err)
		}
		toks, err := jsTokenize(string(src))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		f := parseFragment(name, toks)
		last := i == len(scannerParts)-1
		if f.namespace == "" && !last || f.namespace != "" && last {
			t.Errorf("%s: a file defines one namespace, const Name = (() => { ... })();, but the last, which closes the scanner", name)
		}
		frags = append(frags, f)
	}
	// The qualified uses of each file are known once every namespace is.
	for _, f := range frags {
		f.qualify(frags)
	}
	return frags
}

func namespaceOf(frags []*jsFragment, name string) *jsFragment {
	for _, f := range frags {
		if f.namespace == name {
			return f
		}
	}
	return nil
}
