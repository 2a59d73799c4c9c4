package mergelogreceiver

import (
	"context"
	"time"

	"github.com/mergelog/otelcol-mergelog/internal/container"
	"github.com/mergelog/otelcol-mergelog/internal/filetrack"
)

// chunkBytes is how much of one file a read round takes before going on to the next file:
// every file advances each round, so the merge watermark advances and no file starves.
const chunkBytes = 256 << 10

// reading is the files the receiver follows and where its reading is: the tracker, each file's
// state, the round robin over them and the poll timing. Its streams hand what they join to
// setup's emit. Owned by the run goroutine.
type reading struct {
	tracker *filetrack.Tracker
	files   map[uint64]*tailedFile
	// order is the files to read, in reading order (round robin): those handed out and not
	// read to io.EOF since, and those done but not settled yet. idle is the files read to
	// io.EOF that may have something to flush. A round's work follows the files with data,
	// not the files followed.
	order    []*tailedFile
	idle     []*tailedFile
	cursor   int // the file of order the read round is at
	polls    pollClock
	setup    *fileSetup
	split    *splitWaits
	partials *partials
	merge    *mergeStage // nil without merge
	// out is where the entries read go: reading stops while its batch is parked.
	out *delivery
	// checkpoints takes header lines, which settle without an entry.
	checkpoints *checkpoints
	flushAfter  time.Duration // force_flush_period
	truncate    bool          // max_log_size_behavior truncate: the rest of a cut line is dropped
}

// pollIfDue asks the tracker, once poll_interval has passed since it last did, for the files to
// read this round; a file not seen before gets its state (streams, merge input, attributes).
// While the batch is parked nothing is read, and the tracker only holds on to what it has open
// (PollHolding).
func (rd *reading) pollIfDue(ctx context.Context, now time.Time) {
	if !rd.polls.due(now) {
		return
	}
	rd.polls.next, rd.polls.overdue = now.Add(rd.polls.interval), false
	files := rd.tracker.Poll
	if rd.out.parked {
		files = rd.tracker.PollHolding
	}
	for _, file := range files() {
		f := rd.files[file.ID()]
		if f == nil {
			f = rd.setup.newFile(ctx, file, now)
			rd.files[f.id] = f
			rd.split.files.add(f)
		}
		if !f.on.order {
			rd.order = append(rd.order, f)
			f.on.order = true
		}
		f.file = file
		f.state.drained = false
		if f.state.waiting.IsZero() {
			f.state.waiting = now // new data, or a new file: unread since this poll
		}
		if f.state.done && !file.Finished() {
			// Its file went away and was finished, and is back: read on, as a new merge input.
			f.state.done = false
			f.input = rd.merge.addInput()
		}
	}
}

// round reads a chunk of every file handed out and not yet read to io.EOF (the tracker hands a
// file out again only once it has data beyond what it has buffered); it reports whether some
// file has more to read now. A round cut short for a poll goes on after it where it stopped, so
// that every file gets its turn however long rounds take; a round reads at least one file,
// however long a poll takes.
func (rd *reading) round(ctx context.Context) (more bool) {
	for read := false; rd.cursor < len(rd.order); rd.cursor++ {
		if rd.out.parked {
			return false
		}
		if read && rd.polls.overdueNow() {
			return true
		}
		if f := rd.order[rd.cursor]; !f.state.drained && !f.state.done && !f.state.blocked {
			read = true
			if rd.readFile(ctx, f) {
				more = true
			}
		}
	}
	rd.cursor = 0
	rd.compact()
	return more
}

// compact takes out of order the files read to io.EOF, which a poll puts back when it hands
// them out again, and forgets those that are finished and whose entries are all settled.
func (rd *reading) compact() {
	kept := rd.order[:0]
	for _, f := range rd.order {
		switch {
		case f.state.done && f.settled() && !f.pending():
			delete(rd.files, f.id)
			rd.split.files.remove(f)
			rd.partials.forget(f)
			rd.setup.resources.release(f.resource)
			f.on.order = false
		case f.state.drained && !f.state.done:
			f.on.order = false
		default:
			kept = append(kept, f)
		}
	}
	clear(rd.order[len(kept):])
	rd.order = kept
}

// readFile reads up to chunkBytes of f's lines into its streams, and on to the end of a
// container line it is in the middle of (see tailedFile.midLine); true if it stopped early.
func (rd *reading) readFile(ctx context.Context, f *tailedFile) (more bool) {
	now := time.Now()
	if rd.split.files.holds(f, now) {
		return false // read once the file before it in its container's log is (rotations.go)
	}
	f.observed = now.UnixNano()
	if f.file.Path() != f.path {
		rd.setup.setAttrs(f)
	}
	// Leaving f, the round gives its line reader back for the next file: a file waiting for its
	// turn holds no buffer. Nothing keeps the lines read: streams copy what they hold.
	defer f.file.Yield()
	defer rd.partials.bound(f)
	budget := chunkBytes
	for budget > 0 || f.midLine() {
		if rd.polls.overdue || rd.out.parked {
			return true
		}
		if rd.merge.full(f.input) {
			f.state.blocked = true
			return false
		}
		line, end, err := f.file.Next()
		if err != nil {
			// io.EOF: nothing more for now. Another error ends the file, and the tracker
			// has logged it.
			f.state.drained, f.state.waiting = true, time.Time{}
			rd.split.awaitRest(f, now)
			if !f.on.idle {
				rd.idle = append(rd.idle, f)
				f.on.idle = true
			}
			break
		}
		budget -= len(line) + 1
		f.lastData, f.partial = now, 0
		rd.line(ctx, f, line, end)
	}
	if budget <= 0 && !f.state.drained {
		return true
	}
	if f.file.Finished() {
		rd.finishFile(ctx, f)
	}
	return false
}

// line hands one line taken from f, which ends at end, to its stream.
func (rd *reading) line(ctx context.Context, f *tailedFile, line []byte, end int64) {
	if rd.setup.decoder != nil {
		line = rd.setup.decoder.Decode(line) // cut at the encoded newline, then decoded
	}
	start, piece := f.at.take(end, f.file.Split())
	if f.header != nil && f.header.open && rd.setup.headerLine(ctx, f, line) {
		// A header line: parsed into the file's attributes, not a record; committed once
		// nothing before it is still on its way.
		rd.checkpoints.touch(f)
		return
	}
	// The pieces of a line cut at max_log_size are held as the whole line: an offset is
	// committed at a line end only, so after a crash a cut line is read again from its start.
	s := f.streams[0]
	if f.parser != nil {
		var l container.Line
		s, l = f.containerLine(line, piece)
		if l.Stream != container.StreamNone {
			rd.split.continueSplit(s, start)
			s.pieces.Add(l.Log, start, end, l.Time, l.Partial || f.at.piece)
			return
		}
		line = l.Log
	}
	if piece && rd.truncate {
		return // the rest of a line cut at max_log_size: its entry is already full
	}
	s.add(line, start, end, 0)
}

// flushIdle emits what waits at the end of files that got no new data for force_flush_period
// (a partial last line, a multiline entry waiting for its next start), as file_log does. It
// returns when the next such flush is due. Only files read to the end of their data qualify:
// one held back (merge, chunk budget) has its next lines still unread.
func (rd *reading) flushIdle(ctx context.Context, now time.Time) (due time.Time) {
	if rd.out.parked {
		return due
	}
	kept := rd.idle[:0]
	for _, f := range rd.idle {
		if f.state.done || !f.state.drained {
			f.on.idle = false // handed out again: back in idle at its next io.EOF
			continue
		}
		tail, end := f.file.Partial()
		if len(tail) != f.partial {
			f.lastData, f.partial = now, len(tail)
		}
		if rd.flushAfter <= 0 || (len(tail) == 0 && !f.pending()) {
			f.on.idle = false // nothing waits: only reading can change that
			continue
		}
		kept = append(kept, f)
		if at := f.lastData.Add(rd.flushAfter); now.Before(at) {
			due = earliest(due, at)
			continue
		}
		f.observed = now.UnixNano()
		rd.flushTail(ctx, f, tail, end, now)
	}
	clear(rd.idle[len(kept):])
	rd.idle = kept
	return earliest(due, rd.split.flushUnjoined(now))
}

// flushTail emits f's partial last line, if any, and what its streams hold, but for pieces
// waiting for the rest of their line.
func (rd *reading) flushTail(ctx context.Context, f *tailedFile, tail []byte, end int64, now time.Time) {
	if len(tail) > 0 {
		rd.line(ctx, f, tail, end)
		f.file.ConsumePartial()
		f.partial = 0
	}
	for _, s := range f.streams {
		rd.split.flush(s, now)
		s.joiner.Release() // quiet: its buffer is not needed until it is read again
	}
	rd.partials.recount(f)
}

// finishFile ends a file that will give nothing more: what waits at its end is complete now.
func (rd *reading) finishFile(ctx context.Context, f *tailedFile) {
	if f.state.done {
		return
	}
	tail, end := f.file.Partial()
	now := time.Now()
	if f.input != nil {
		// With merge its input ends now: no piece of it waits for a next file.
		for _, s := range f.streams {
			if !s.waitSince.IsZero() {
				rd.split.emitUnjoined(s, now)
			}
		}
	}
	rd.flushTail(ctx, f, tail, end, now)
	if f.input != nil {
		rd.merge.window.Finish(f.input)
	}
	f.state.done = true
}

// unblock lets the files held back by max_held_per_file be read again once the merge window
// released some of their entries; true if one may.
func (rd *reading) unblock() (unblocked bool) {
	for _, f := range rd.order {
		if f.state.blocked && !rd.merge.full(f.input) {
			f.state.blocked, unblocked = false, true
		}
	}
	return unblocked
}

// lag is how long the file that has waited longest has had data not yet read: since the poll
// that handed it out after it was last read to io.EOF. It is zero when every file is read to the
// end of its data. Only files in order can wait: a poll puts every file it hands out there, and
// compact takes out those drained.
func (rd *reading) lag(now time.Time) time.Duration {
	var oldest time.Time
	for _, f := range rd.order {
		w := f.state.waiting
		if !w.IsZero() && !f.state.done && (oldest.IsZero() || w.Before(oldest)) {
			oldest = w
		}
	}
	if oldest.IsZero() {
		return 0
	}
	return now.Sub(oldest)
}
