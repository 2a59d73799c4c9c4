package filetrack

import "io/fs"

// fileKey is a file's device and inode: its identity while it exists. keyOf,
// which finds it, depends on the OS.
type fileKey struct{ dev, ino uint64 }

// hasKey reports whether the file at path, whose stat is info, is the one
// known by key.
func hasKey(path string, info fs.FileInfo, key fileKey) bool {
	k, err := keyOf(path, info)
	return err == nil && k == key
}
