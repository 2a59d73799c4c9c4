//go:build unix

package filetrack

import (
	"fmt"
	"io/fs"
	"syscall"
)

// keyOf returns the device and inode of the file at path, from its stat.
func keyOf(path string, info fs.FileInfo) (fileKey, error) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return fileKey{}, fmt.Errorf("filetrack: no device and inode for %s", path)
	}
	// The field types differ between systems (Dev is int32 on darwin).
	return fileKey{dev: uint64(st.Dev), ino: uint64(st.Ino)}, nil
}

// unlinked reports whether the open file of info has no name left: deleted, and holding its
// disk space until its descriptors close.
func unlinked(info fs.FileInfo) bool {
	st, ok := info.Sys().(*syscall.Stat_t)
	return ok && st.Nlink == 0
}
