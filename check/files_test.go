package check_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/poppy-browser/poppy-browser/check"
)

// TestOutputFilesRefuseLinks: every report file refuses a symbolic link
// (to a file, or dangling) and anything but a regular file, as --ca-out
// does, before the run (Files.Check) and when writing; the link's target
// is left as it was. A regular file is replaced, a new one created.
func TestOutputFilesRefuseLinks(t *testing.T) {
	rep := &check.Report{Schema: check.SchemaID, Pages: []check.PageReport{{URL: "https://shop.test/", Status: check.StatusChecked}}}
	for _, flag := range []string{"json", "junit", "html", "sarif", "lighthouse"} {
		for _, tc := range []struct {
			name    string
			prepare func(t *testing.T, dir, path string) // makes what is at path
			wantErr string                               // "" when the write must succeed
		}{
			{"new file", func(*testing.T, string, string) {}, ""},
			{"regular file", func(t *testing.T, _, path string) { write(t, path, "old report") }, ""},
			{"link to a file", func(t *testing.T, dir, path string) {
				write(t, filepath.Join(dir, "victim"), "keep me")
				symlink(t, filepath.Join(dir, "victim"), path)
			}, "is a symbolic link"},
			{"dangling link", func(t *testing.T, dir, path string) {
				symlink(t, filepath.Join(dir, "victim"), path)
			}, "is a symbolic link"},
			{"directory", func(t *testing.T, _, path string) {
				if err := os.Mkdir(path, 0o755); err != nil {
					t.Fatal(err)
				}
			}, "is not a regular file"},
			{"named pipe", func(t *testing.T, _, path string) {
				if err := syscall.Mkfifo(path, 0o644); err != nil {
					t.Skip("no named pipes here:", err)
				}
			}, "is not a regular file"},
		} {
			t.Run(flag+"/"+tc.name, func(t *testing.T) {
				dir := t.TempDir()
				path := filepath.Join(dir, "report."+flag)
				tc.prepare(t, dir, path)
				files := check.Files{}
				switch flag {
				case "json":
					files.JSON = path
				case "junit":
					files.JUnit = path
				case "html":
					files.HTML = path
				case "sarif":
					files.SARIF = path
				case "lighthouse":
					files.Lighthouse = path
				}
				checkErr := files.Check()
				writeErr := rep.WriteFiles(files, check.Error, nil)
				if tc.wantErr == "" {
					if checkErr != nil || writeErr != nil {
						t.Fatalf("check %v, write %v; want both to succeed", checkErr, writeErr)
					}
					data, err := os.ReadFile(path)
					if err != nil || len(data) == 0 || string(data) == "old report" {
						t.Fatalf("the report was not written: %q %v", data, err)
					}
					if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
						t.Errorf("report mode %v, want 0644", fi.Mode().Perm())
					}
				} else {
					for what, err := range map[string]error{"Files.Check": checkErr, "WriteFiles": writeErr} {
						if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "--"+flag) {
							t.Errorf("%s: %v, want an error naming --%s and saying %q", what, err, flag, tc.wantErr)
						}
					}
				}
				if data, err := os.ReadFile(filepath.Join(dir, "victim")); err == nil && string(data) != "keep me" {
					t.Errorf("the link's target was written through: %q", data)
				} else if tc.name == "dangling link" && err == nil {
					t.Errorf("the dangling link's target was created")
				}
				leftovers, _ := filepath.Glob(filepath.Join(dir, ".*.tmp"))
				if len(leftovers) > 0 {
					t.Errorf("temporary files left behind: %v", leftovers)
				}
			})
		}
	}
	t.Run("missing folder", func(t *testing.T) {
		err := check.Files{SARIF: filepath.Join(t.TempDir(), "no", "such", "dir", "x.sarif")}.Check()
		if err == nil || !strings.Contains(err.Error(), "folder does not exist") {
			t.Errorf("Files.Check: %v, want the folder named missing", err)
		}
	})
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}
