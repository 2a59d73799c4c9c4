package mergelogreceiver

import (
	"context"
	"path/filepath"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/mergelog/otelcol-mergelog/internal/container"
	"github.com/mergelog/otelcol-mergelog/internal/filetrack"
	"github.com/mergelog/otelcol-mergelog/internal/merge"
)

// The attribute names of file_log (stanza's fileconsumer/attrs).
const (
	attrFileName         = "log.file.name"
	attrFilePath         = "log.file.path"
	attrFileNameResolved = "log.file.name_resolved"
	attrFilePathResolved = "log.file.path_resolved"
	attrRecordNumber     = "log.file.record_number"
)

// chunkBytes is how much of one file a read round takes before going on to the next file:
// every file advances each round, so the merge watermark advances and no file starves.
const chunkBytes = 256 << 10

// fileState is the receiver's side of one tracked file: its streams, its merge input, its
// attributes and resource.
type fileState struct {
	file     *filetrack.File
	id       uint64
	streams  []*stream            // one, or with format container one per output stream
	parser   *container.Parser    // with format container
	input    *merge.Input[uint32] // nil without merge
	resource *resourceGroup
	attrs    attrSet   // static and log.file.* attributes, copied into each record
	path     string    // the path attrs were built for
	records  int64     // record number of the last entry
	readEnd  int64     // end of the last line taken from the file
	lastData time.Time // when a line or partial-line byte last arrived (force_flush_period)
	partial  int       // length of the partial last line at lastData
	drained  bool      // Next reached io.EOF since the tracker last handed the file out
	done     bool      // read to its end: flushed, merge input finished
	blocked  bool      // holds max_held_per_file entries in the merge window
	touched  bool      // settled entries since the last commit
	piece    bool      // the last line read was cut at max_log_size: the next continues it
	cut      cutLine   // with format container: the line the pieces belong to
}

// attrSet is a set of record attributes and their size, for batch.max_bytes.
type attrSet struct {
	m     pcommon.Map
	bytes int
}

func newAttrSet(m pcommon.Map, extra int) attrSet {
	a := attrSet{m: m, bytes: extra}
	m.Range(func(k string, v pcommon.Value) bool {
		a.bytes += len(k) + len(v.Str())
		return true
	})
	return a
}

func (r *mergelogReceiver) newFileState(file *filetrack.File, now time.Time) *fileState {
	f := &fileState{file: file, id: file.ID(), lastData: now, records: file.Records(), readEnd: file.Offset()}
	if r.cfg.Format == formatContainer {
		f.parser = &container.Parser{}
		for _, k := range []container.Stream{container.StreamNone, container.Stdout, container.Stderr} {
			f.streams = append(f.streams, r.newStream(f, k))
		}
	} else {
		f.streams = []*stream{r.newStream(f, container.StreamNone)}
	}
	if r.window != nil {
		f.input = r.window.AddInput()
	}
	r.setAttrs(f)
	return f
}

// setAttrs builds the attributes and resource of f's records; a file moved by rotation keeps its
// identity and gets the attributes of its new path.
func (r *mergelogReceiver) setAttrs(f *fileState) {
	f.path = f.file.Path()
	m := pcommon.NewMap()
	r.rules.static.CopyTo(m)
	if r.cfg.IncludeFileName {
		m.PutStr(attrFileName, f.file.Name())
	}
	if r.cfg.IncludeFilePath {
		m.PutStr(attrFilePath, f.path)
	}
	if r.cfg.IncludeFileNameResolved || r.cfg.IncludeFilePathResolved {
		resolved := f.file.ResolvedPath()
		if r.cfg.IncludeFileNameResolved {
			m.PutStr(attrFileNameResolved, filepath.Base(resolved))
		}
		if r.cfg.IncludeFilePathResolved {
			m.PutStr(attrFilePathResolved, resolved)
		}
	}
	extra := 0
	if r.cfg.IncludeFileRecordNumber {
		extra = len(attrRecordNumber) + 8
	}
	f.attrs = newAttrSet(m, extra)
	for _, s := range f.streams {
		s.attrs = f.attrs
		if s.kind != container.StreamNone {
			sm := pcommon.NewMap()
			m.CopyTo(sm)
			sm.PutStr(attrIOStream, s.kind.String())
			s.attrs = newAttrSet(sm, extra)
		}
	}
	r.resources.release(f.resource)
	f.resource = r.resources.of(f.path, r.cfg.Format == formatContainer)
}

// poll asks the tracker for the files to read this round; a file not seen before gets its
// state (joiner, merge input, attributes).
func (r *mergelogReceiver) poll(now time.Time) {
	r.nextPoll, r.pollOverdue = now.Add(r.cfg.PollInterval), false
	for _, file := range r.tracker.Poll() {
		f := r.files[file.ID()]
		if f == nil {
			f = r.newFileState(file, now)
			r.files[f.id] = f
			r.order = append(r.order, f)
		}
		f.file = file
		f.drained = false
		if f.done && !file.Finished() {
			// Its file went away and was finished, and is back: read on, as a new merge input.
			f.done = false
			if r.window != nil {
				f.input = r.window.AddInput()
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
	for read := false; r.cursor < len(r.order); r.cursor++ {
		if r.stopping {
			return false
		}
		if read && r.pollDue() {
			return true
		}
		if f := r.order[r.cursor]; !f.drained && !f.done && !f.blocked {
			read = true
			if r.readFile(f) {
				more = true
			}
		}
	}
	r.cursor = 0
	r.dropDone()
	return more
}

// dropDone forgets the files that are finished and whose entries are all settled.
func (r *mergelogReceiver) dropDone() {
	kept := r.order[:0]
	for _, f := range r.order {
		if f.done && f.settled() {
			delete(r.files, f.id)
			r.resources.release(f.resource)
			continue
		}
		kept = append(kept, f)
	}
	clear(r.order[len(kept):])
	r.order = kept
}

// pollDue reports whether a poll is due before reading on: a read round, or a delivery blocked
// by backpressure, that outlasts poll_interval must not read a file past changes only a poll
// sees (a copytruncate refilled past the read offset would be read as the old file's).
func (r *mergelogReceiver) pollDue() bool {
	if !r.pollOverdue && !time.Now().Before(r.nextPoll) {
		r.pollOverdue = true
	}
	return r.pollOverdue
}

// readFile reads up to chunkBytes of f's lines into its joiner; true if it stopped early.
func (r *mergelogReceiver) readFile(f *fileState) (more bool) {
	now := time.Now()
	r.observed = now.UnixNano()
	if f.file.Path() != f.path {
		r.setAttrs(f)
	}
	budget := chunkBytes
	for budget > 0 {
		if r.stopping {
			return false
		}
		if r.pollOverdue {
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
			break
		}
		budget -= len(line) + 1
		f.lastData, f.partial = now, 0
		r.line(f, line, end)
	}
	if budget <= 0 {
		return true
	}
	if f.file.Finished() {
		r.finishFile(f)
	}
	return false
}

// line hands one line taken from f, which ends at end, to its stream.
func (r *mergelogReceiver) line(f *fileState, line []byte, end int64) {
	start := f.readEnd
	f.readEnd = end
	piece := f.piece
	f.piece = f.file.Split()
	if f.parser != nil {
		r.containerLine(f, line, start, end, piece)
		return
	}
	if piece && r.rules.join.Truncate {
		return // the rest of a line cut at max_log_size: its entry is already full
	}
	f.streams[0].add(line, start, end, 0)
}

// flushIdle emits what waits at the end of files that got no new data for force_flush_period
// (a partial last line, a multiline entry waiting for its next start), as file_log does. It
// returns when the next such flush is due. Only files read to the end of their data qualify:
// one held back (merge, chunk budget) has its next lines still unread.
func (r *mergelogReceiver) flushIdle(now time.Time) (due time.Time) {
	period := r.cfg.ForceFlushPeriod
	for _, f := range r.order {
		if f.done || !f.drained || r.stopping {
			continue
		}
		tail, end := f.file.Partial()
		if len(tail) != f.partial {
			f.lastData, f.partial = now, len(tail)
		}
		if period <= 0 || (len(tail) == 0 && !f.pending()) {
			continue
		}
		if at := f.lastData.Add(period); now.Before(at) {
			due = earliest(due, at)
			continue
		}
		r.observed = now.UnixNano()
		r.flushTail(f, tail, end)
	}
	return due
}

// flushTail emits f's partial last line, if any, and what its streams hold.
func (r *mergelogReceiver) flushTail(f *fileState, tail []byte, end int64) {
	if len(tail) > 0 {
		r.line(f, tail, end)
		f.file.ConsumePartial()
		f.partial = 0
	}
	for _, s := range f.streams {
		s.flush()
	}
}

// pending reports whether any stream of f holds bytes not yet emitted.
func (f *fileState) pending() bool {
	for _, s := range f.streams {
		if s.pending() {
			return true
		}
	}
	return false
}

// settled reports whether every entry read from f has settled.
func (f *fileState) settled() bool {
	for _, s := range f.streams {
		if !s.out.empty() {
			return false
		}
	}
	return true
}

// committable returns the offset f may be committed to, the start of the first byte a stream
// still needs, and the number of records before it.
func (f *fileState) committable() (offset, records int64) {
	offset, records = f.readEnd, f.records
	for _, s := range f.streams {
		if start, record, ok := s.oldest(); ok && start < offset {
			offset = start
			if record > 0 {
				records = record - 1
			}
		}
	}
	return offset, records
}

// finishFile ends a file that will give nothing more: what waits at its end is complete now.
func (r *mergelogReceiver) finishFile(f *fileState) {
	if f.done {
		return
	}
	tail, end := f.file.Partial()
	r.flushTail(f, tail, end)
	if f.input != nil {
		r.window.Finish(f.input)
	}
	f.done = true
}

// entry is a joiner's sink for stream s: it numbers the entry, shapes it and sends it on, to the
// merge window or straight into the batch.
func (r *mergelogReceiver) entry(s *stream, text []byte, end int64) {
	f := s.f
	first := s.held.popThrough(end)
	f.records++
	seq := s.out.add(first.start, f.records)
	text = r.rules.shape(text)
	if len(text) == 0 {
		// file_log drops empty entries but still numbers them.
		r.settle(s, seq)
		return
	}
	e := entry{s: s, seq: seq, record: f.records, body: r.rules.body(text), observed: r.observed}
	if s.kind != container.StreamNone {
		e.at, e.timed = first.at, true // the runtime's time, unless a timestamp section finds one
	}
	if r.rules.parser != nil {
		if at, ok := r.rules.parser.Parse(text); ok {
			e.at, e.timed = at, true
		}
	}
	if !e.timed && (r.rules.parser != nil || f.parser != nil) {
		r.counts.untimed++
	}
	if r.window == nil {
		r.add(&e)
		return
	}
	r.window.Push(f.input, e.at, e.timed, r.roundClock, r.held.put(&e))
	r.pushed = true
}

// release moves what the merge window lets go into the batch. It returns when the window must
// be looked at again at the latest (the oldest round of entries held reaching the window), and
// whether a file held back by max_held_per_file may be read again.
func (r *mergelogReceiver) release() (due time.Time, unblocked bool) {
	if r.window == nil {
		return due, false
	}
	if r.pushed {
		r.rounds = append(r.rounds, r.roundClock)
		r.pushed = false
	}
	now := r.clock()
	r.window.Release(now, r.emitHeld)
	r.recordHold()
	for _, f := range r.order {
		if f.blocked && f.input.Held() < r.cfg.Merge.MaxHeldPerFile {
			f.blocked, unblocked = false, true
		}
	}
	hold := r.cfg.Merge.Window.Nanoseconds()
	i := 0
	for i < len(r.rounds) && now-r.rounds[i] >= hold {
		i++
	}
	r.rounds = append(r.rounds[:0], r.rounds[i:]...)
	if r.window.Len() == 0 || len(r.rounds) == 0 {
		r.rounds = r.rounds[:0]
		return due, unblocked
	}
	return time.Unix(0, r.rounds[0]+hold).Add(r.paused), unblocked
}

// emitHeld is the merge window's emit callback.
func (r *mergelogReceiver) emitHeld(slot uint32, heldFor int64) {
	r.longestHold = max(r.longestHold, heldFor)
	r.add(r.held.at(slot)) // add copies what it keeps, and puts nothing into the slab
	r.held.release(slot)
}

// recordHold records the longest hold of the entries just released: one histogram value per
// release, not per entry, which would cost more than the rest of an entry's way through.
func (r *mergelogReceiver) recordHold() {
	if r.longestHold >= 0 {
		r.tel.ReceiverMergelogMergeHoldDuration.Record(context.Background(), float64(r.longestHold)/1e9, r.metricAttrs.self)
		r.longestHold = -1
	}
}

// slab keeps the entries held in the merge window, which holds only their slot numbers: its
// heap then moves small values, with fewer write barriers, however large an entry is.
type slab struct {
	entries []entry
	free    []uint32
}

func (s *slab) put(e *entry) uint32 {
	if n := len(s.free); n > 0 {
		i := s.free[n-1]
		s.free = s.free[:n-1]
		s.entries[i] = *e
		return i
	}
	s.entries = append(s.entries, *e)
	return uint32(len(s.entries) - 1)
}

// at returns the entry in slot i, valid until the next put.
func (s *slab) at(i uint32) *entry { return &s.entries[i] }

// release empties slot i (dropping its references) for reuse.
func (s *slab) release(i uint32) {
	s.entries[i] = entry{}
	s.free = append(s.free, i)
}
