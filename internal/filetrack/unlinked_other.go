//go:build !unix

package filetrack

import "io/fs"

// unlinked cannot tell a deleted open file on this system (the stat has no link count): the
// bound on the disk space of deleted files (Options.MaxDeletedBytes) does not apply here.
func unlinked(fs.FileInfo) bool { return false }
