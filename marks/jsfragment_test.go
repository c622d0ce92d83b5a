package marks

// A jsFragment is one file of js/scanner/ as TestScannerImports reads it:
// the names it binds, reads, imports and exports. Scopes are not told
// apart: a name bound anywhere in the file counts as defined in it.
type jsFragment struct {
	file      string
	toks      []jsToken
	namespace string   // "" for none
	exports   []string // the keys of the object the namespace's function returns
	defines   map[string]bool
	// uses are the indexes of names read: not a property (after . or ?.),
	// an object's key or a method's name.
	uses  []int
	count map[string]int // how many uses each name has
	// candidates are the const { a, b } = X; lines, X's index: imports
	// when X is a namespace.
	candidates map[int][]string
	imported   map[string]string // name -> the namespace it is imported from
	qualified  []qualifiedUse    // Namespace.name
}

type qualifiedUse struct {
	space, name string
	line        int
}

func parseFragment(file string, toks []jsToken) *jsFragment {
	f := &jsFragment{file: file, toks: toks, defines: map[string]bool{}, count: map[string]int{},
		candidates: map[int][]string{}, imported: map[string]string{}}
	f.findNamespace()
	for i, t := range toks {
		if t.kind == 'a' {
			f.binds(i)
			f.reads(i)
		}
	}
	for i, t := range toks {
		if t.kind == 'p' && t.text == "=>" {
			if f.is(i-1, 'a', "") {
				f.defines[toks[i-1].text] = true
			} else if f.is(i-1, 'p', ")") {
				f.params(f.matchBack(i - 1))
			}
		}
	}
	return f
}

// binds binds what a keyword at token i declares.
func (f *jsFragment) binds(i int) {
	switch f.toks[i].text {
	case "const", "let", "var":
		f.declarators(i + 1)
	case "function", "class":
		j := i + 1
		if f.is(j, 'a', "") {
			f.defines[f.toks[j].text] = true
			j++
		}
		if f.toks[i].text == "function" {
			f.params(j)
		}
	case "catch":
		f.params(i + 1)
	}
}

// reads notes the name at token i as a use unless it is a keyword, a
// property, an object's key or a method's name (then binds its
// parameters).
func (f *jsFragment) reads(i int) {
	t := f.toks[i]
	if jsKeywords[t.text] || f.is(i-1, 'p', ".") || f.is(i-1, 'p', "?.") {
		return
	}
	afterItem := f.is(i-1, 'p', "{") || f.is(i-1, 'p', ",")
	if afterItem && f.is(i+1, 'p', ":") {
		return
	}
	if afterItem && f.is(i+1, 'p', "(") && f.is(f.match(i+1)+1, 'p', "{") {
		f.params(i + 1)
		return
	}
	f.uses = append(f.uses, i)
	f.count[t.text]++
}

// is says token i exists, is of kind, and reads text ("" for any).
func (f *jsFragment) is(i int, kind byte, text string) bool {
	return i >= 0 && i < len(f.toks) && f.toks[i].kind == kind && (text == "" || f.toks[i].text == text)
}

// match is the index of the bracket that closes the one at i.
func (f *jsFragment) match(i int) int {
	depth := 0
	for j := i; j < len(f.toks); j++ {
		depth += bracketStep(f.toks[j])
		if depth == 0 {
			return j
		}
	}
	return len(f.toks)
}

// matchBack is the index of the bracket that opens the one closing at i.
func (f *jsFragment) matchBack(i int) int {
	depth := 0
	for j := i; j >= 0; j-- {
		depth += bracketStep(f.toks[j])
		if depth == 0 {
			return j
		}
	}
	return 0
}

func bracketStep(t jsToken) int {
	if t.kind != 'p' {
		return 0
	}
	switch t.text {
	case "(", "[", "{":
		return 1
	case ")", "]", "}":
		return -1
	}
	return 0
}

// findNamespace finds const Name = (() => { and the keys of the object
// the function returns last.
func (f *jsFragment) findNamespace() {
	open := []string{"=", "(", "(", ")", "=>", "{"}
	for i := range f.toks {
		if !f.is(i, 'a', "const") || !f.is(i+1, 'a', "") {
			continue
		}
		ok := true
		for k, p := range open {
			ok = ok && f.is(i+2+k, 'p', p)
		}
		if ok {
			f.namespace = f.toks[i+1].text
			break
		}
	}
	if f.namespace == "" {
		return
	}
	ret := -1
	for i := range f.toks {
		if f.is(i, 'a', "return") && f.is(i+1, 'p', "{") {
			ret = i + 1
		}
	}
	if ret >= 0 {
		f.exportsFrom(ret)
	}
}

// exportsFrom reads the keys of the object literal opening at token i.
func (f *jsFragment) exportsFrom(i int) {
	end := f.match(i)
	for j := i + 1; j < end; j++ {
		if f.is(j, 'a', "") && (f.is(j-1, 'p', "{") || f.is(j-1, 'p', ",")) {
			f.exports = append(f.exports, f.toks[j].text)
		}
		if bracketStep(f.toks[j]) > 0 {
			j = f.match(j)
		}
	}
}

// declarators binds the names of a const, let or var declaration from
// token i, and notes the lines that may be imports.
func (f *jsFragment) declarators(i int) {
	for i < len(f.toks) {
		switch {
		case f.is(i, 'p', "{") || f.is(i, 'p', "["):
			end := f.match(i)
			names := f.pattern(i+1, end)
			if f.is(end+1, 'p', "=") && f.is(end+2, 'a', "") && f.is(end+3, 'p', ";") {
				f.candidates[end+2] = names
			}
			i = end + 1
		case f.is(i, 'a', ""):
			f.defines[f.toks[i].text] = true
			i++
		default:
			return
		}
		if !f.is(i, 'p', "=") {
			if f.is(i, 'p', ",") {
				i++
				continue
			}
			return // for (const x of ...), or no initializer
		}
		var more bool
		if i, more = f.initializer(i + 1); !more {
			return
		}
	}
}

// initializer skips an initializer from token i: the index of the next
// declarator, or false at the end of the declaration.
func (f *jsFragment) initializer(i int) (int, bool) {
	depth := 0
	for ; i < len(f.toks); i++ {
		depth += bracketStep(f.toks[i])
		if depth < 0 || depth == 0 && f.is(i, 'p', ";") {
			return i, false
		}
		if depth == 0 && f.is(i, 'p', ",") {
			return i + 1, true
		}
	}
	return i, false
}

// params binds the parameters of the list opening at token i.
func (f *jsFragment) params(i int) {
	if f.is(i, 'p', "(") {
		f.pattern(i+1, f.match(i))
	}
}

// pattern binds the names of a binding pattern (a parameter list, an
// object or array pattern) in tokens [i, end): not keys, not what a
// default value reads.
func (f *jsFragment) pattern(i, end int) []string {
	var names []string
	depth, skipping := 0, -1
	for j := i; j < end; j++ {
		t := f.toks[j]
		if b := bracketStep(t); b != 0 {
			if b < 0 && skipping == depth {
				skipping = -1
			}
			depth += b
			continue
		}
		if skipping >= 0 {
			if depth == skipping && f.is(j, 'p', ",") {
				skipping = -1
			}
			continue
		}
		switch {
		case f.is(j, 'p', "="):
			skipping = depth
		case t.kind == 'a' && !f.is(j+1, 'p', ":"):
			f.defines[t.text] = true
			names = append(names, t.text)
		}
	}
	return names
}

// qualify sorts the uses of the namespaces of frags: the X of an import
// line (const { a } = X;) and X.name, from which it takes names.
func (f *jsFragment) qualify(frags []*jsFragment) {
	var uses []int
	for _, i := range f.uses {
		t := f.toks[i]
		if namespaceOf(frags, t.text) == nil {
			uses = append(uses, i)
			continue
		}
		if names, ok := f.candidates[i]; ok {
			for _, n := range names {
				f.imported[n] = t.text
			}
			continue
		}
		if f.is(i+1, 'p', ".") && f.is(i+2, 'a', "") {
			f.qualified = append(f.qualified, qualifiedUse{t.text, f.toks[i+2].text, t.line})
			continue
		}
		uses = append(uses, i)
	}
	f.uses = uses
}
