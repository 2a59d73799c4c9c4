package mergelogreceiver

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mergelog/otelcol-mergelog/internal/container"
	"github.com/mergelog/otelcol-mergelog/internal/decompress"
)

// With format container, a line the runtime split (CRI P pieces, Docker's lines without their
// newline) may have its pieces in two files: kubelet renames 0.log while containerd holds part
// of a line, the old logger writes that part at the end of the renamed file and the rest begins
// the new 0.log. The pieces left at the end of a file wait, up to split_line_wait, for their
// rest: later in the same file, or at the start of the next file of the same container stream
// (same directory and restart, same output stream), which takes them over. A line whose rest does not come
// in time is emitted as it is and counted (split_lines_unjoined).
//
// The entry being joined at the end of a file (a stack trace whose first lines the runtime wrote
// before the rotation) goes with them: the next file's stream takes it over with the pieces, and
// its next line may join it. At the end of a file that was rotated it waits as the pieces do; at
// the end of the live file it waits until force_flush_period only, as any entry there does.

// splitKey is a container's output stream on the node: its log file, by the path it has before
// rotation (<dir>/<restart>.log: a container restarted writes another file, whose first line
// never continues the last of the one before), and the stream.
type splitKey struct {
	log  string
	kind container.Stream
}

func (s *stream) splitKey() splitKey {
	return splitKey{log: liveLog(s.f.path), kind: s.kind}
}

// liveLog is the path a container's log file at path has before rotation.
func liveLog(path string) string {
	if dir, name := filepath.Split(path); name != "" {
		if base, _, ok := strings.Cut(name, ".log"); ok {
			return dir + base + ".log" // 0.log.<timestamp>, 0.log.<timestamp>.gz: 0.log
		}
	}
	return path
}

// splitWaits are the streams whose pieces wait at the end of their file for the rest of their
// line, by container stream. Owned by the run goroutine.
type splitWaits struct {
	waiting  map[splitKey]*stream   // nil until one waits
	files    map[uint64]*tailedFile // reading's: the files followed
	wait     time.Duration          // split_line_wait
	partials *partials              // pieces taken over or emitted change their file's share
	counts   *counts
}

// awaitRest marks the streams of f, read to the end of its data, whose pieces wait for the rest
// of their line: the next file of their container stream will look for them.
func (w *splitWaits) awaitRest(f *tailedFile, now time.Time) {
	if w.wait <= 0 || f.parser == nil {
		return
	}
	for _, s := range f.streams {
		if s.pieces == nil || !s.pending() || !s.waitSince.IsZero() {
			continue
		}
		s.waitSince = now
		if w.waiting == nil {
			w.waiting = map[splitKey]*stream{}
		}
		k := s.splitKey()
		if o := w.waiting[k]; o != nil && o != s {
			// The next file continues the later file's pieces: the earlier ones never end.
			w.emitUnjoined(o, now)
		}
		w.waiting[k] = s
	}
}

// continueSplit is called before stream s takes a piece of a line, which starts at start: the
// first of its file takes over the pieces and the entry that wait at the end of the file before
// it in the container stream; a piece that follows its own waiting pieces ends their wait.
func (w *splitWaits) continueSplit(s *stream, start int64) {
	if !s.waitSince.IsZero() {
		w.stopWaiting(s)
	}
	if s.begun {
		return
	}
	s.begun = true
	if len(w.waiting) == 0 {
		return
	}
	if o := w.waiting[s.splitKey()]; o != nil && o != s && w.follows(s.f, o.f) && !o.f.unreadOnDisk() {
		if from, ok := o.oldestHeld(); ok {
			o.lent = &loan{from: o.f, start: from}
			s.borrowed = o.lent
		}
		// The lines of o's entry are s's now: o's books let go of them, its loan holds its
		// commit at their start instead.
		o.books.Lines.PopThrough(math.MaxInt64)
		s.joiner.TakeOver(o.joiner, start)
		s.pieces.TakeOver(o.pieces)
		w.stopWaiting(o)
		w.partials.recount(o.f) // its pieces are s's file's now, counted after its read
	}
}

// follows reports whether file f comes right after file o in their container stream, as
// kubelet's names order them: the rotated files by the time in their name (compressed before
// uncompressed of the same second: kubelet compresses the one before it renames the next), the
// live one last; else as the receiver found them. A file between them, known to the receiver
// (found after f, say, when both were created between two polls), comes first: o's pieces and
// entry continue in it, not in f.
func (w *splitWaits) follows(f, o *tailedFile) bool {
	from, to := rotationRank(o.file.Path()), rotationRank(f.file.Path())
	if from >= to {
		// The names do not order them: the receiver has not seen o renamed (yet, or before it
		// was removed). It found o first.
		return o.id < f.id
	}
	log := liveLog(o.path)
	for _, g := range w.files {
		if g != f && g != o && liveLog(g.path) == log {
			if r := rotationRank(g.file.Path()); from < r && r < to {
				return false
			}
		}
	}
	return true
}

// holdBack reports whether f, a container file not read yet, must wait for the file before it
// in its container stream, which holds bytes not read yet (found in the same poll, or written
// there by the runtime before it reopened the log: kubelet renames the file first): the entry
// and the pieces at that file's end, which f's first lines may continue, are known only once
// it is read to its end.
// f waits at most split_line_wait.
func (w *splitWaits) holdBack(f *tailedFile, now time.Time) bool {
	if f.parser == nil || w.wait <= 0 || f.started {
		return false
	}
	if f.heldSince.IsZero() {
		f.heldSince = now
	}
	if now.Before(f.heldSince.Add(w.wait)) {
		if o := w.before(f); o != nil && !o.state.done && (!o.state.drained || o.unreadOnDisk()) {
			return true
		}
	}
	f.started = true
	return false
}

// before returns the file right before f in its container stream (see follows), nil if the
// receiver knows none.
func (w *splitWaits) before(f *tailedFile) *tailedFile {
	log, to := liveLog(f.path), rotationRank(f.file.Path())
	var best *tailedFile
	bestRank := ""
	for _, g := range w.files {
		if g == f || liveLog(g.path) != log {
			continue
		}
		if r := rotationRank(g.file.Path()); r < to && r > bestRank {
			best, bestRank = g, r
		}
	}
	return best
}

// liveRank is the rotationRank of a live file (0.log), after every rotated one.
const liveRank = "~"

// rotationRank orders the files of a container stream by their names: 0.log.<time>.gz, then
// 0.log.<time>, then the live 0.log (liveRank).
func rotationRank(path string) string {
	_, rest, _ := strings.Cut(filepath.Base(path), ".log")
	if rest == "" {
		return liveRank
	}
	if at, ok := strings.CutSuffix(rest, ".gz"); ok {
		return at + "0"
	}
	return rest + "1"
}

// oldestHeld returns where the first byte s holds for entries not finished yet starts: the
// first line of its open entry, else its first piece.
func (s *stream) oldestHeld() (start int64, ok bool) {
	if l, ok := s.books.Lines.First(); ok {
		return l.Start, true
	}
	start, _, ok = s.pieces.Oldest()
	return start, ok
}

// rotated reports whether f's file was rotated: its name is its container stream's log's
// (0.log) with a suffix (0.log.<timestamp>, 0.log.<timestamp>.gz).
func (f *tailedFile) rotated() bool {
	_, rest, ok := strings.Cut(filepath.Base(f.file.Path()), ".log")
	return ok && rest != ""
}

// unreadOnDisk reports whether f's file holds bytes past what was read of it: then the pieces at
// the end of what was read are not the end of the file, and their rest may be in it (the runtime
// wrote it there before the rotation; the receiver went to the next file first, for want of a
// descriptor or of a poll that saw the old one grow). A compressed file is complete.
func (f *tailedFile) unreadOnDisk() bool {
	if f.file.Kind() != decompress.Plain {
		return false
	}
	info, err := os.Stat(f.file.Path())
	return err == nil && info.Size() > f.at.readEnd
}

// stopWaiting ends s's wait for the rest of its line.
func (w *splitWaits) stopWaiting(s *stream) {
	s.waitSince = time.Time{}
	if k := s.splitKey(); w.waiting[k] == s {
		delete(w.waiting, k)
	}
}

// waitsForRest reports whether s's pieces still wait at now.
func (w *splitWaits) waitsForRest(s *stream, now time.Time) bool {
	return !s.waitSince.IsZero() && now.Before(s.waitSince.Add(w.wait))
}

// flushUnjoined emits as they are the pieces whose wait is over, counting them, and returns
// when the next wait ends.
func (w *splitWaits) flushUnjoined(now time.Time) (due time.Time) {
	for _, s := range w.waiting {
		if w.waitsForRest(s, now) {
			due = earliest(due, s.waitSince.Add(w.wait))
			continue
		}
		w.emitUnjoined(s, now)
	}
	return due
}

// emitUnjoined ends s's wait: its pieces are emitted as a line, counted as unjoined, and its
// entry.
func (w *splitWaits) emitUnjoined(s *stream, now time.Time) {
	w.stopWaiting(s)
	if s.pending() {
		s.f.observed = now.UnixNano()
		if s.pieces.Pending() {
			w.counts.unjoined++
		}
		s.flush()
		w.partials.recount(s.f)
	}
}

// flush emits what s holds at now, but pieces that wait for the rest of their line (see
// waitsForRest) go on waiting, with the entry their line may join; so does the entry at the end
// of a rotated file, whose next lines may begin the next file.
func (w *splitWaits) flush(s *stream, now time.Time) {
	if w.waitsForRest(s, now) && (s.pieces.Pending() || s.f.rotated()) {
		return
	}
	if !s.waitSince.IsZero() {
		w.emitUnjoined(s, now)
	}
	s.flush()
}
