package filetrack

import (
	"errors"
	"io/fs"

	"go.uber.org/zap"
)

// report logs a problem with a path once, until it is solved or the path
// is no longer matched.
func (t *Tracker) report(path string, err error) {
	what := "unreadable"
	switch {
	case errors.Is(err, fs.ErrNotExist):
		what = "vanished"
	case errors.Is(err, fs.ErrPermission):
		what = "permission denied"
	}
	t.reportAs(path, what, err)
}

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
		t.log.Info("file readable again after: "+what, zap.String("path", path))
	}
}
