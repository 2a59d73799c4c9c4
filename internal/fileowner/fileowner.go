// Package fileowner names a file's owner and group as the system's user and group databases do,
// for file_log's log.file.owner.name and log.file.owner.group.name.
package fileowner

import "errors"

// ErrUnknown is Names' error where the system does not say who owns a file (Windows).
var ErrUnknown = errors.New("file owners are not known on this system")
