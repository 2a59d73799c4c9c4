//go:build windows

package fileowner

import "io/fs"

// Names: owners are not known on Windows.
func Names(fs.FileInfo, bool, bool) (string, string, error) { return "", "", ErrUnknown }
