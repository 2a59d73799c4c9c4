package filetrack

import (
	"cmp"
	"io"
	"slices"

	"go.uber.org/zap"

	"github.com/mergelog/otelcol-mergelog/internal/decompress"
)

// Bytes that will never be read are counted (Stats.BytesLost) and logged, naming the file:
//   - a file that went away (deleted, rotated out of the globs, truncated in place) before it was
//     read to its end while no descriptor held it: it is counted when its identity is forgotten,
//     the last moment a copy or a compressed version could still have continued it;
//   - a file of the last run (restored from the checkpoint) not found again, of which the last run
//     had read more than it committed;
//   - a file deleted while open, closed to keep the disk space that deleted files hold within
//     MaxDeletedBytes (their space is freed only when the last descriptor closes, and a node
//     short of disk evicts pods).

// boundDeleted closes drained files that were deleted while open, those seen last the longest
// ago first, while together they hold more than MaxDeletedBytes on disk.
func (t *Tracker) boundDeleted() {
	if t.opts.MaxDeletedBytes <= 0 {
		return
	}
	deleted, held := t.scratch.cands[:0], int64(0)
	for _, f := range t.scratch.drained {
		if !f.r.draining || f.r.fd == nil || f.r.done || f.src == nil {
			continue
		}
		info, err := f.r.fd.Stat()
		if err != nil || !unlinked(info) {
			continue
		}
		f.src.size = info.Size()
		deleted = append(deleted, f)
		held += info.Size()
	}
	if held > t.opts.MaxDeletedBytes {
		slices.SortFunc(deleted, func(a, b *File) int {
			return cmp.Or(cmp.Compare(a.src.seen, b.src.seen), cmp.Compare(a.id, b.id))
		})
		for _, f := range deleted {
			if held <= t.opts.MaxDeletedBytes {
				break
			}
			df := f.src
			held -= df.size
			t.lose(f, df.path, t.unreadOnDisk(f, df), "closing a deleted file before it was read to its end: "+
				"deleted files held open would take more disk space than the configured bound")
			t.fds.closeFile(f)
			f.src, f.r.draining = nil, false
			t.dropDisk(df)
			t.current.finish(f)
		}
	}
	clear(deleted)
	t.scratch.cands = deleted[:0]
}

// unreadOnDisk returns the bytes of df that f has not handed out: for a compressed file, the
// compressed bytes its descriptor has not reached.
func (t *Tracker) unreadOnDisk(f *File, df *diskFile) int64 {
	if f.r.kind == decompress.Plain {
		return max(df.size-f.r.off, 0)
	}
	pos, err := f.r.fd.Seek(0, io.SeekCurrent)
	if err != nil {
		return df.size
	}
	return max(df.size-pos, 0)
}

// noteSize remembers the largest size seen of f's plain source, to tell at forget how much of
// it was never read: when it becomes the source, and whenever its size changes.
func (f *File) noteSize(df *diskFile) {
	if df.kind == decompress.Plain {
		f.sizes.plain = max(f.sizes.plain, df.size)
	} else if !f.r.done {
		f.sizes.compressed = df.size
	}
}

// loseUnread counts and logs what of f, forgotten now, was never read.
func (t *Tracker) loseUnread(f *File) {
	s, cs := f.sizes, f.r.checks.list
	switch {
	case f.skipped || f.r.done:
	case s.plain > f.r.off && s.truncated:
		t.lose(f, f.path, s.plain-f.r.off, "file truncated or rewritten before it was read to its end, and no copy of it continued it")
	case s.plain > f.r.off:
		t.lose(f, f.path, s.plain-f.r.off, "file went away before it was read to its end")
	case s.plain == 0 && s.compressed > 0:
		t.lose(f, f.path, s.compressed, "compressed file went away before it was read to its end")
	case s.plain == 0 && len(cs) > 0:
		// Restored from the checkpoint and not found in this run: what the last run read and
		// had not committed (its last check point is where reading got to) is lost with it.
		t.lose(f, f.path, cs[len(cs)-1].off-f.r.off,
			"file of the last run went away while the collector was down, before what was read of it was delivered")
	}
}

// lose counts n bytes of f as never to be read, and says so once for f.
func (t *Tracker) lose(f *File, path string, n int64, why string) {
	if n <= 0 {
		return
	}
	t.stats.bytesLost.Add(n)
	f.sizes.plain, f.sizes.compressed = f.r.off, 0
	t.log.Warn(why, zap.String("path", path), zap.Int64("unread_bytes", n), zap.Int64("read_to", f.r.off))
}
