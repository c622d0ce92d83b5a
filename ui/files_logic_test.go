package ui

import (
	"testing"

	"github.com/poppy-browser/poppy-browser/browser"
)

func TestAccepts(t *testing.T) {
	for _, c := range []struct {
		accept, name, typ string
		want              bool
	}{
		{"", "anything.bin", "", true},
		{"image/*,.pdf", "scan.png", "image/png", true},
		{"image/*,.pdf", "scan.PDF", "", true},
		{"image/*,.pdf", "notes.txt", "text/plain", false},
		{"image/*", "photo.jpg", "image/jpeg; charset=binary", true},
		{"image/*", "photo.jpg", "", false},
		{"application/pdf", "x", "application/pdf", true},
		{"application/pdf", "x.pdf", "application/pdfx", false},
		{" .JPG , .png ", "a.jpg", "", true},
		{"image/*", "evil.png", "imagex/png", false},
		{",,", "a", "", false},
	} {
		if got := accepts(c.accept, c.name, c.typ); got != c.want {
			t.Errorf("accepts(%q, %q, %q) = %v, want %v", c.accept, c.name, c.typ, got, c.want)
		}
	}
}

func FuzzAccepts(f *testing.F) {
	f.Add("image/*,.pdf", "scan.png", "image/png")
	f.Fuzz(func(t *testing.T, accept, name, typ string) {
		if accepts("", name, typ) != true {
			t.Error("an empty accept refuses a file")
		}
		_ = accepts(accept, name, typ)
	})
}

func TestUploadAdd(t *testing.T) {
	u := &upload{files: []fileMeta{{Name: "a", Size: 3}, {Name: "empty", Size: 0}, {Name: "b", Size: 2}}, data: make([][]byte, 3)}
	u.skipEmpty()
	if !u.add([]byte("ab")) || u.done() {
		t.Fatal("a first chunk")
	}
	if !u.add([]byte("cde")) || !u.done() {
		t.Fatal("the chunk across two files, past the empty one")
	}
	if string(u.data[0]) != "abc" || string(u.data[1]) != "" || string(u.data[2]) != "de" {
		t.Errorf("files = %q", u.data)
	}
	if u.add([]byte("f")) {
		t.Error("a byte past the sizes announced is taken")
	}
}

func TestDownloadName(t *testing.T) {
	for _, c := range []struct {
		d    browser.Download
		want string
	}{
		{browser.Download{Filename: "boarding-pass.pdf"}, "boarding-pass.pdf"},
		{browser.Download{URL: "https://airline.test/files/ticket.pdf?k=1"}, "ticket.pdf"},
		{browser.Download{Filename: "../../etc/passwd"}, ".._.._etc_passwd"},
		{browser.Download{Filename: "a\nb"}, "a_b"},
		{browser.Download{URL: "https://airline.test/"}, "download"},
	} {
		if got := downloadName(c.d); got != c.want {
			t.Errorf("downloadName(%+v) = %q, want %q", c.d, got, c.want)
		}
	}
}

func TestSizeWords(t *testing.T) {
	for n, want := range map[int]string{0: "0 bytes", 1023: "1023 bytes", 1536: "1.5 KB", 10 << 20: "10.0 MB"} {
		if got := sizeWords(n); got != want {
			t.Errorf("sizeWords(%d) = %q, want %q", n, got, want)
		}
	}
}
