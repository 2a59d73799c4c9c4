package filetrack

import (
	"errors"
	"io/fs"

	"go.uber.org/zap"
)

// report logs a problem with a path once, until it is solved or the path
// is no longer matched. A path that vanished between listing and opening is
// most often a file rotated away (renamed or deleted) at that moment: that
// is logged at debug level the first time, and warned about only when the
// path is still listed, and still missing, at a later poll (a dangling link).
func (t *Tracker) report(path string, err error) {
	what := "unreadable"
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if t.reported[path] != vanishedOnce && t.reported[path] != "vanished" {
			t.reported[path] = vanishedOnce
			t.log.Debug("file vanished as it was listed (rotated away?)", zap.String("path", path), zap.Error(err))
			return
		}
		what = "vanished"
	case errors.Is(err, fs.ErrPermission):
		what = "permission denied"
	}
	t.reportAs(path, what, err)
}

// vanishedOnce marks a path that vanished once, not yet warned about.
const vanishedOnce = "vanished once"

func (t *Tracker) reportAs(path, what string, err error) {
	if t.reported[path] == what {
		return
	}
	t.reported[path] = what
	t.log.Warn("skipping file for now: "+what, zap.String("path", path), zap.Error(err))
}

func (t *Tracker) readable(path string) {
	if what, ok := t.reported[path]; ok {
		delete(t.reported, path)
		if what != vanishedOnce {
			t.log.Info("file readable again after: "+what, zap.String("path", path))
		}
	}
}
