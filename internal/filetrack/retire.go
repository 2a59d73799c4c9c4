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
		if f.done && (f.fd != nil || f.lr != nil) {
			t.closeFile(f)
		}
		if f.off > f.counted {
			t.bytesRead.Add(f.off - f.counted)
			f.counted = f.off
		}
	}
}

// deleteRead deletes the files read to their end and fully committed.
func (t *Tracker) deleteRead() {
	if !t.opts.DeleteAfterRead {
		return
	}
	for _, f := range t.v.files {
		df := f.src
		if df == nil || f.forgotten || f.failed || f.skipped || f.draining || f.committed < f.off {
			continue
		}
		if f.kind == decompress.Plain {
			if !f.eof || df.size != f.tail.pos || f.off != f.tail.pos {
				continue
			}
		} else if !f.done {
			continue
		}
		if err := os.Remove(df.path); err != nil {
			t.reportAs(df.path, "cannot delete", err)
			continue
		}
		t.log.Debug("deleted file after reading it", zap.String("path", df.path))
		t.closeFile(f)
		t.finish(f)
		f.src = nil
		t.dropDisk(df)
	}
}

// forget drops the identities whose files have been gone for a while.
func (t *Tracker) forget() {
	for _, df := range t.v.disks {
		if df.ident != nil && !df.dropped {
			df.ident.lastSeen = t.poll
		}
	}
	for _, f := range t.v.files {
		if f.forgotten || f.lastSeen+forgetPolls > t.poll || f.fd != nil || f.committed < f.off {
			continue
		}
		t.loseUnread(f)
		t.finish(f)
		t.idx.remove(f)
		t.forgetFile(f)
	}
}

func (t *Tracker) finish(f *File) {
	if f.done {
		return
	}
	f.done = true
	if f.handedOut {
		t.finished = append(t.finished, f)
	}
}
