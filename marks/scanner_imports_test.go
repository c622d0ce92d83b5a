package marks

import (
	"slices"
	"strings"
	"testing"
)

// scannerGlobals are the names of the isolated world (JavaScript's and
// the DOM's) that the scanner's files use without defining them.
var scannerGlobals = strings.Fields(`Array Document DocumentFragment Element Error HTMLAnchorElement
	HTMLButtonElement HTMLDetailsElement HTMLFormElement HTMLIFrameElement HTMLInputElement
	HTMLLabelElement HTMLSelectElement HTMLSlotElement HTMLTextAreaElement JSON Map Math
	MouseEvent MutationObserver Node Number Object Set ShadowRoot WeakMap WeakSet
	addEventListener document getComputedStyle globalThis innerHeight innerWidth location
	parseInt performance queueMicrotask window`)

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
	globals := map[string]bool{}
	for _, g := range scannerGlobals {
		globals[g] = true
	}
	spaces := map[string]*jsFragment{} // the namespaces of earlier files
	used := map[string]bool{}          // Namespace.name imported by some file
	usedGlobals := map[string]bool{}
	for _, f := range frags {
		for _, i := range f.uses {
			u := f.toks[i]
			switch {
			case f.defines[u.text] || f.imported[u.text] != "":
			case spaces[u.text] != nil:
				t.Errorf("%s:%d: namespace %s is used whole, not as %[3]s.name or in an import line", f.file, u.line, u.text)
			case globals[u.text]:
				usedGlobals[u.text] = true
			case namespaceOf(frags, u.text) != nil:
				t.Errorf("%s:%d: %s is a later file's namespace: an earlier file cannot import from it", f.file, u.line, u.text)
			default:
				t.Errorf("%s:%d: %s is neither defined in the file, nor imported from an earlier file's namespace, nor in scannerGlobals", f.file, u.line, u.text)
			}
		}
		for _, q := range f.qualified {
			ns := spaces[q.space]
			switch {
			case ns == nil && q.space == f.namespace:
				t.Errorf("%s:%d: %s.%s: a file uses its own names directly", f.file, q.line, q.space, q.name)
			case ns == nil:
				t.Errorf("%s:%d: %s is not the namespace of an earlier file", f.file, q.line, q.space)
			case !slices.Contains(ns.exports, q.name):
				t.Errorf("%s:%d: %s does not export %s", f.file, q.line, q.space, q.name)
			default:
				used[q.space+"."+q.name] = true
			}
		}
		for name, space := range f.imported {
			ns := spaces[space]
			switch {
			case ns == nil:
				t.Errorf("%s: %s is imported from %s, not an earlier file's namespace", f.file, name, space)
			case !slices.Contains(ns.exports, name):
				t.Errorf("%s: %s is imported from %s, which does not export it", f.file, name, space)
			case f.count[name] < 2:
				t.Errorf("%s: %s is imported from %s and not used", f.file, name, space)
			default:
				used[space+"."+name] = true
			}
		}
		if f.namespace != "" {
			spaces[f.namespace] = f
		}
	}
	for _, f := range frags {
		for _, name := range f.exports {
			if !used[f.namespace+"."+name] {
				t.Errorf("%s: %s exports %s, which no later file uses", f.file, f.namespace, name)
			}
		}
	}
	for _, g := range scannerGlobals {
		if !usedGlobals[g] {
			t.Errorf("scannerGlobals lists %s, which no file uses", g)
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
