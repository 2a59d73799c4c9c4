package mergelogreceiver

import (
	"math"
	"os"
	"time"

	"github.com/mergelog/otelcol-mergelog/internal/container"
	"github.com/mergelog/otelcol-mergelog/internal/decompress"
	"github.com/mergelog/otelcol-mergelog/internal/ledger"
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
	return splitKey{log: containerLog(s.f.path), kind: s.kind}
}

// splitWaits are the streams whose pieces wait at the end of their file for the rest of their
// line, by container stream. Owned by the run goroutine.
type splitWaits struct {
	waiting  map[splitKey]*stream // nil until one waits
	files    rotations            // the order a container's files are begun in
	wait     time.Duration        // split_line_wait
	partials *partials            // pieces taken over or emitted change their file's share
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
	if o := w.waiting[s.splitKey()]; o != nil && o != s && w.files.follows(s.f, o.f) && !o.f.unreadOnDisk() {
		if from, ok := o.oldestHeld(); ok {
			o.lent = &loan{from: o.f, start: from}
			s.borrowed = o.lent
		}
		// The lines of o's entry are s's now: o's books let go of them, its loan holds its
		// commit at their start instead. s's books hold the entry as a line of no bytes at
		// start with the runtime's time of its first line: the record's time.
		if first, ok := o.books.Lines.First(); ok && o.joiner.Pending() {
			s.books.Lines.Push(ledger.Line{Start: start, End: start, At: first.At})
		}
		o.books.Lines.PopThrough(math.MaxInt64)
		s.joiner.TakeOver(o.joiner, start)
		s.pieces.TakeOver(o.pieces)
		w.stopWaiting(o)
		w.partials.recount(o.f) // its pieces are s's file's now, counted after its read
	}
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
