package mergelogreceiver

import (
	"time"

	"github.com/mergelog/otelcol-mergelog/internal/filetrack"
)

// chunkBytes is how much of one file a read round takes before going on to the next file:
// every file advances each round, so the merge watermark advances and no file starves.
const chunkBytes = 256 << 10

// reading is the files the receiver follows and where its reading is: the tracker, each file's
// state, the round robin over them and the poll timing. Owned by the run goroutine.
type reading struct {
	tracker *filetrack.Tracker
	files   map[uint64]*tailedFile
	// order is the files to read, in reading order (round robin): those handed out and not
	// read to io.EOF since, and those done but not settled yet. idle is the files read to
	// io.EOF that may have something to flush. A round's work follows the files with data,
	// not the files followed.
	order       []*tailedFile
	idle        []*tailedFile
	cursor      int // the file of order the read round is at
	resources   resources
	nextPoll    time.Time
	pollOverdue bool         // reading stops until the next poll
	observed    int64        // ObservedTimestamp of the entries being read
	decoder     *lineDecoder // encodings other than UTF-8: lines to UTF-8; nil otherwise
	held        int          // bytes of entries not finished, in all files (see partials.go)
	// split is, per container stream, the stream whose pieces wait at the end of its file for
	// the rest of their line (splitwait.go); nil until one waits.
	split map[splitKey]*stream
}

// pollDue reports whether a poll is due before reading on: a read round that outlasts
// poll_interval must not read a file past changes only a poll sees (a copytruncate refilled
// past the read offset would be read as the old file's).
func (rd *reading) pollDue() bool {
	if !rd.pollOverdue && !time.Now().Before(rd.nextPoll) {
		rd.pollOverdue = true
	}
	return rd.pollOverdue
}

// compact takes out of order the files read to io.EOF, which a poll puts back when it hands
// them out again, and forgets those that are finished and whose entries are all settled.
func (rd *reading) compact() {
	kept := rd.order[:0]
	for _, f := range rd.order {
		switch {
		case f.done && f.settled() && !f.pending():
			delete(rd.files, f.id)
			rd.held -= f.held
			rd.resources.release(f.resource)
			f.queued = false
		case f.drained && !f.done:
			f.queued = false
		default:
			kept = append(kept, f)
		}
	}
	clear(rd.order[len(kept):])
	rd.order = kept
}

// poll asks the tracker for the files to read this round; a file not seen before gets its
// state (streams, merge input, attributes). While the batch is parked nothing is read, and the
// tracker only holds on to what it has open (PollHolding).
func (r *mergelogReceiver) poll(now time.Time) {
	rd := &r.read
	rd.nextPoll, rd.pollOverdue = now.Add(r.cfg.PollInterval), false
	files := rd.tracker.Poll
	if r.out.parked {
		files = rd.tracker.PollHolding
	}
	for _, file := range files() {
		f := rd.files[file.ID()]
		if f == nil {
			f = r.newTailedFile(file, now)
			rd.files[f.id] = f
		}
		if !f.queued {
			rd.order = append(rd.order, f)
			f.queued = true
		}
		f.file = file
		f.drained = false
		if f.done && !file.Finished() {
			// Its file went away and was finished, and is back: read on, as a new merge input.
			f.done = false
			if r.merge != nil {
				f.input = r.merge.window.AddInput()
			}
		}
	}
}

// readRound reads a chunk of every file handed out and not yet read to io.EOF (the tracker
// hands a file out again only once it has data beyond what it has buffered); it reports
// whether some file has more to read now. A round cut short for a poll goes on after it where
// it stopped, so that every file gets its turn however long rounds take; a round reads at
// least one file, however long a poll takes.
func (r *mergelogReceiver) readRound() (more bool) {
	rd := &r.read
	for read := false; rd.cursor < len(rd.order); rd.cursor++ {
		if r.out.stopped || r.out.parked {
			return false
		}
		if read && rd.pollDue() {
			return true
		}
		if f := rd.order[rd.cursor]; !f.drained && !f.done && !f.blocked {
			read = true
			if r.readFile(f) {
				more = true
			}
		}
	}
	rd.cursor = 0
	rd.compact()
	return more
}

// readFile reads up to chunkBytes of f's lines into its streams, and on to the end of a
// container line it is in the middle of (see tailedFile.midLine); true if it stopped early.
func (r *mergelogReceiver) readFile(f *tailedFile) (more bool) {
	now := time.Now()
	r.read.observed = now.UnixNano()
	if f.file.Path() != f.path {
		r.setAttrs(f)
	}
	// Leaving f, the round gives its line reader back for the next file: a file waiting for its
	// turn holds no buffer. Nothing keeps the lines read: streams copy what they hold.
	defer f.file.Yield()
	defer r.boundPartials(f)
	budget := chunkBytes
	for budget > 0 || f.midLine() {
		if r.out.stopped {
			return false
		}
		if r.read.pollOverdue || r.out.parked {
			return true
		}
		if f.input != nil && f.input.Held() >= r.cfg.Merge.MaxHeldPerFile {
			f.blocked = true
			return false
		}
		line, end, err := f.file.Next()
		if err != nil {
			// io.EOF: nothing more for now. Another error ends the file, and the tracker
			// has logged it.
			f.drained = true
			r.awaitRest(f, now)
			if !f.idle {
				r.read.idle = append(r.read.idle, f)
				f.idle = true
			}
			break
		}
		budget -= len(line) + 1
		f.lastData, f.partial = now, 0
		r.line(f, line, end)
	}
	if budget <= 0 && !f.drained {
		return true
	}
	if f.file.Finished() {
		r.finishFile(f)
	}
	return false
}

// line hands one line taken from f, which ends at end, to its stream.
func (r *mergelogReceiver) line(f *tailedFile, line []byte, end int64) {
	if r.read.decoder != nil {
		line = r.read.decoder.decode(line) // cut at the encoded newline, then decoded
	}
	piece := f.piece
	f.piece = f.file.Split()
	if !piece {
		f.lineStart = f.readEnd
	}
	f.readEnd = end
	if !f.piece {
		f.lineEnd = end
	}
	if f.header != nil && f.header.open && r.headerLine(f, line) {
		return // a header line: parsed into the file's attributes, not a record
	}
	// The pieces of a line cut at max_log_size are held as the whole line: an offset is
	// committed at a line end only, so after a crash a cut line is read again from its start.
	start := f.lineStart
	if f.parser != nil {
		r.containerLine(f, line, start, end, piece)
		return
	}
	if piece && r.compiled.join.Truncate {
		return // the rest of a line cut at max_log_size: its entry is already full
	}
	f.streams[0].add(line, start, end, 0)
}

// flushIdle emits what waits at the end of files that got no new data for force_flush_period
// (a partial last line, a multiline entry waiting for its next start), as file_log does. It
// returns when the next such flush is due. Only files read to the end of their data qualify:
// one held back (merge, chunk budget) has its next lines still unread.
func (r *mergelogReceiver) flushIdle(now time.Time) (due time.Time) {
	rd := &r.read
	if r.out.stopped || r.out.parked {
		return due
	}
	period := r.cfg.ForceFlushPeriod
	kept := rd.idle[:0]
	for _, f := range rd.idle {
		if f.done || !f.drained {
			f.idle = false // handed out again: back in idle at its next io.EOF
			continue
		}
		tail, end := f.file.Partial()
		if len(tail) != f.partial {
			f.lastData, f.partial = now, len(tail)
		}
		if period <= 0 || (len(tail) == 0 && !f.pending()) {
			f.idle = false // nothing waits: only reading can change that
			continue
		}
		kept = append(kept, f)
		if at := f.lastData.Add(period); now.Before(at) {
			due = earliest(due, at)
			continue
		}
		rd.observed = now.UnixNano()
		r.flushTail(f, tail, end, now)
	}
	clear(rd.idle[len(kept):])
	rd.idle = kept
	return earliest(due, r.flushUnjoined(now))
}

// flushTail emits f's partial last line, if any, and what its streams hold, but for pieces
// waiting for the rest of their line.
func (r *mergelogReceiver) flushTail(f *tailedFile, tail []byte, end int64, now time.Time) {
	if len(tail) > 0 {
		r.line(f, tail, end)
		f.file.ConsumePartial()
		f.partial = 0
	}
	for _, s := range f.streams {
		r.flushAt(s, now)
		s.joiner.Release() // quiet: its buffer is not needed until it is read again
	}
	r.recount(f)
}

// finishFile ends a file that will give nothing more: what waits at its end is complete now.
func (r *mergelogReceiver) finishFile(f *tailedFile) {
	if f.done {
		return
	}
	tail, end := f.file.Partial()
	now := time.Now()
	if f.input != nil {
		// With merge its input ends now: no piece of it waits for a next file.
		for _, s := range f.streams {
			if !s.waitSince.IsZero() {
				r.emitUnjoined(s, now)
			}
		}
	}
	r.flushTail(f, tail, end, now)
	if f.input != nil {
		r.merge.window.Finish(f.input)
	}
	f.done = true
}
