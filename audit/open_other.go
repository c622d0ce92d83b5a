//go:build !unix

package audit

import (
	"errors"
	"os"
)

// openFile opens path for appending; it refuses what is not a regular
// file (ownership and O_NOFOLLOW are Unix notions).
func openFile(path string) (*os.File, error) {
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, errors.New(path + " is not a regular file")
	}
	return os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
}
