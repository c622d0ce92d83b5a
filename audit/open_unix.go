//go:build unix

package audit

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// openFile opens path for appending without following a symbolic link,
// and checks that it is a regular file of ours with mode 0600.
func openFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o600)
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("%s is a symbolic link; give the file itself", path)
	}
	if err != nil {
		return nil, err
	}
	if err := checkFile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// checkFile refuses what is not a regular file owned by this user, and
// sets mode 0600 on one that has another.
func checkFile(f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return errors.New("not a regular file")
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("owned by user %d, not by this user (%d)", st.Uid, os.Geteuid())
	}
	if fi.Mode().Perm() != 0o600 {
		if err := f.Chmod(0o600); err != nil {
			return fmt.Errorf("its mode is %v and cannot be set to 0600: %w", fi.Mode().Perm(), err)
		}
	}
	return nil
}
