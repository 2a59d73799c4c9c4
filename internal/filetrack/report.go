package filetrack

import (
	"errors"
	"io/fs"

	"go.uber.org/zap"
)

// reporter logs the problems with paths, each once until it is solved or the path is no longer
// listed.
type reporter struct {
	log      *zap.Logger
	reported map[string]string // path → problem reported
}

func newReporter(log *zap.Logger) reporter {
	return reporter{log: log, reported: map[string]string{}}
}

// report logs a problem with a path. A path that vanished between listing and opening is
// most often a file rotated away (renamed or deleted) at that moment: that
// is logged at debug level the first time, and warned about only when the
// path is still listed, and still missing, at a later poll (a dangling link).
func (r *reporter) report(path string, err error) {
	what := "unreadable"
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if r.reported[path] != vanishedOnce && r.reported[path] != "vanished" {
			r.reported[path] = vanishedOnce
			r.log.Debug("file vanished as it was listed (rotated away?)", zap.String("path", path), zap.Error(err))
			return
		}
		what = "vanished"
	case errors.Is(err, fs.ErrPermission):
		what = "permission denied"
	}
	r.reportAs(path, what, err)
}

// vanishedOnce marks a path that vanished once, not yet warned about.
const vanishedOnce = "vanished once"

func (r *reporter) reportAs(path, what string, err error) {
	if r.reported[path] == what {
		return
	}
	r.reported[path] = what
	r.log.Warn("skipping file for now: "+what, zap.String("path", path), zap.Error(err))
}

func (r *reporter) readable(path string) {
	if what, ok := r.reported[path]; ok {
		delete(r.reported, path)
		if what != vanishedOnce {
			r.log.Info("file readable again after: "+what, zap.String("path", path))
		}
	}
}

// dropUnlisted forgets the problems of paths l no longer lists.
func (r *reporter) dropUnlisted(l *listing) {
	for p := range r.reported {
		if l.find(p) == nil {
			delete(r.reported, p)
		}
	}
}
