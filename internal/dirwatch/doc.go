// Package dirwatch tells which paths in a set of directories changed since it
// was last asked, from the system's directory notifications (inotify on
// Linux). One watch per directory, never one per file.
//
// What it says is a hint, not a record: notifications can be lost (the
// kernel's queue overflows), never come (network and FUSE file systems, a
// write through a memory mapping), or come late. The caller keeps a full
// listing on a longer interval as its safety net, and lists everything again
// whenever Changes asks for a rescan.
//
// The events are read only when Changes is called, many in one read, not by a
// goroutine as they come (fsnotify's way): a pod's runtime writes each line on
// its own, so a node at 10 000 lines/s raises 10 000 events a second, and
// taking each one as it came cost the agent a quarter of its CPU. Left in the
// kernel's queue until asked for, they cost a few nanoseconds each.
package dirwatch

import (
	"errors"
	"runtime"
)

// ErrUnsupported is returned by New where a directory watch does not report
// writes to the files in it (kqueue on macOS and the BSDs reports only names
// added and removed) or is not used here at all (Windows, untested).
var ErrUnsupported = errors.New("dirwatch: directory watches do not report file writes on " + runtime.GOOS)
