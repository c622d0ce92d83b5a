package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	// mdLink is the target of an inline Markdown link or image.
	mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	// mdFileName is a Markdown file named in the text, as a link or not
	// (`README.md`, docs/architecture.md, or a path that climbs with ../).
	mdFileName = regexp.MustCompile(`(?:\.\./|[\w-]+/)*[\w-]+\.md\b`)
	// filePath is a path to a source or data file of the repository named
	// in the text (browser/browser.go, js/scanner/scan.js): at least one
	// directory, then a name with one of the repository's extensions. The
	// character before it (group 1) must not continue a longer path, a URL
	// or a package (@scope/...).
	filePath = regexp.MustCompile(`(^|[^\w/.@-])((?:\.\./|[\w.-]+/)+[\w.-]*\w\.(?:go|js|css|html|json|yaml|yml|txtar|golden|sh|txt))\b`)
	// webAddress is a URL or a host-qualified path (golang.org/x/...,
	// github.com/...), whose paths are not the repository's.
	webAddress = regexp.MustCompile(`(?:\w+://|\b[\w-]+(?:\.[\w-]+)*\.(?:com|org|io|dev|net|land|in)/)\S*`)
	// placeholder is a path element that stands for any name (NAME, DIR).
	placeholder = regexp.MustCompile(`(^|/)[A-Z]+(/|$)`)
)

// TestMarkdownLinksStayInside: every Markdown file of the repository links
// and names only files in the repository, and so does every comment of its
// Go files, so a fresh clone has no dead ends: a relative link resolves to
// a file or directory inside it, a Markdown file named in the text
// exists (beside the document or from the root), and so does a file path
// named in the text (browser/browser.go, from the root or a folder). The project's reference
// is docs/reference.md, not a document outside the repository.
func TestMarkdownLinksStayInside(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	files := repoFiles{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(root, path)
			files[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	docs, sources := 0, 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") {
			sources++
			rel, _ := filepath.Rel(root, path)
			text, err := goComments(path)
			if err != nil {
				return err
			}
			for _, problem := range outsideReferences(root, path, text, files) {
				t.Errorf("%s (a comment): %s", rel, problem)
			}
			return nil
		}
		if d.IsDir() || !strings.HasSuffix(path, ".md") {
			return nil
		}
		docs++
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		for _, problem := range outsideReferences(root, path, string(b), files) {
			t.Errorf("%s: %s", rel, problem)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if docs < 5 || sources < 100 {
		t.Fatalf("found %d Markdown files and %d Go files under %s: the walk missed the repository", docs, sources, root)
	}
}

// goComments returns the text of every comment of the Go file at path.
func goComments(path string) (string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, g := range f.Comments {
		b.WriteString(g.Text())
		b.WriteByte('\n')
	}
	return b.String(), nil
}

// outsideReferences lists the links and Markdown file names in doc (the
// text of the file at path) that do not lead to a file inside root.
func outsideReferences(root, path, doc string, files repoFiles) []string {
	var problems []string
	inside := func(target string) bool {
		if !strings.HasPrefix(target, root+string(filepath.Separator)) && target != root {
			return false
		}
		_, err := os.Stat(target)
		return err == nil
	}
	for _, m := range mdLink.FindAllStringSubmatch(doc, -1) {
		target := m[1]
		if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") || strings.HasPrefix(target, "#") {
			continue
		}
		target, _, _ = strings.Cut(target, "#")
		var abs string
		if strings.HasPrefix(target, "/") {
			abs = filepath.Join(root, target)
		} else {
			abs = filepath.Join(filepath.Dir(path), target)
		}
		if !inside(abs) {
			problems = append(problems, "link to "+m[1]+" leads outside the repository or nowhere")
		}
	}
	local := webAddress.ReplaceAllString(doc, " ")
	for _, m := range filePath.FindAllStringSubmatch(local, -1) {
		name := m[2]
		if placeholder.MatchString(name) || strings.HasPrefix(name, ".") && !strings.HasPrefix(name, "../") {
			continue // a pattern, or a path of a Company's site or a User's config (.well-known/, .cursor/)
		}
		if strings.HasPrefix(name, "../") {
			if !inside(filepath.Join(filepath.Dir(path), name)) {
				problems = append(problems, "names "+name+", outside the repository")
			}
			continue
		}
		if !files.has(name) {
			problems = append(problems, "names "+name+", which is no file of the repository")
		}
	}
	for _, name := range mdFileName.FindAllString(doc, -1) {
		if strings.HasPrefix(name, "../") {
			if !inside(filepath.Join(filepath.Dir(path), name)) {
				problems = append(problems, "names "+name+", outside the repository")
			}
			continue
		}
		if !inside(filepath.Join(filepath.Dir(path), name)) && !inside(filepath.Join(root, name)) {
			problems = append(problems, "names "+name+", which is not in the repository")
		}
	}
	return problems
}

// repoFiles is the set of the repository's file paths, with "/".
type repoFiles map[string]bool

// has reports whether name is the path of a file of the repository, from
// the root or from any folder (a Go comment names js/scanner/scan.js from
// its package, a document names it from marks).
func (f repoFiles) has(name string) bool {
	if f[name] {
		return true
	}
	for p := range f {
		if strings.HasSuffix(p, "/"+name) {
			return true
		}
	}
	return false
}
