package filetrack

import (
	"os"

	"go.uber.org/zap"

	"github.com/mergelog/otelcol-mergelog/internal/decompress"
)

// housekeep closes the files that finished before this poll (the caller has
// had its round to flush their partial lines) and counts bytes read by
// rounds that stopped before the end.
func (t *Tracker) housekeep() {
	for _, f := range t.v.files {
		if f.r.done && (f.r.fd != nil || f.r.lr != nil) {
			t.fds.closeFile(f)
		}
		f.r.count()
	}
}

// deleteRead deletes the files read to their end and fully committed.
func (t *Tracker) deleteRead() {
	if !t.opts.DeleteAfterRead {
		return
	}
	for _, f := range t.v.files {
		df := f.src
		if df == nil || f.marks.forgotten || f.r.failed || f.skipped || f.r.draining || f.committed < f.r.off {
			continue
		}
		if f.r.kind == decompress.Plain {
			if !f.r.eof || df.size != f.r.tail.pos || f.r.off != f.r.tail.pos {
				continue
			}
		} else if !f.r.done {
			continue
		}
		if err := os.Remove(df.path); err != nil {
			t.reports.reportAs(df.path, "cannot delete", err)
			continue
		}
		t.log.Debug("deleted file after reading it", zap.String("path", df.path))
		t.fds.closeFile(f)
		t.current.finish(f)
		f.src = nil
		t.dropDisk(df)
	}
}

// forget drops the identities whose files have been gone for a while.
func (t *Tracker) forget() {
	for _, df := range t.v.disks {
		if df.ident != nil && !df.dropped {
			df.ident.marks.lastSeen = t.poll
		}
	}
	for _, f := range t.v.files {
		if f.marks.forgotten || f.marks.lastSeen+forgetPolls > t.poll || f.r.fd != nil || f.committed < f.r.off {
			continue
		}
		t.loseUnread(f)
		t.current.finish(f)
		t.forgetFile(f)
	}
}
