//go:build windows

package mergelogreceiver

import "io/fs"

// ownerNames: Validate refuses owner names on Windows, as file_log does.
func ownerNames(fs.FileInfo, bool, bool) (string, string, error) { return "", "", errNoOwnership }
