package mergelogreceiver

import (
	"fmt"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/mergelog/otelcol-mergelog/internal/container"
	"github.com/mergelog/otelcol-mergelog/internal/filetrack"
	"github.com/mergelog/otelcol-mergelog/internal/ledger"
	"github.com/mergelog/otelcol-mergelog/internal/mergewindow"
	"github.com/mergelog/otelcol-mergelog/receiver/mergelogreceiver/internal/exprvalues"
)

// tailedFile is the receiver's side of one file the tracker follows (a filetrack.File): the
// streams its lines are joined in, its merge input, its attributes and resource, and where its
// reading is.
type tailedFile struct {
	file     *filetrack.File
	id       uint64
	streams  []*stream                  // one, or with format container one per output stream
	parser   *container.Parser          // with format container
	input    *mergewindow.Input[uint32] // nil without merge
	header   *fileHeader                // with a header section: what it gave, whether it is still read
	resource *resourceGroup
	attrs    attrSet   // static and log.file.* attributes, copied into each record
	path     string    // the path attrs were built for
	records  int64     // record number of the last entry
	at       place     // where its reading is
	observed int64     // ObservedTimestamp of the entries being read from it
	lastData time.Time // when a line or partial-line byte last arrived (force_flush_period)
	partial  int       // length of the partial last line at lastData
	state    readState
	on       lists
	held     int // bytes of entries not finished in its streams, as last counted
	// started: lines were taken from it; until then it may be held back, since heldSince, for
	// the file before it in its container stream (splitWaits.holdBack).
	started   bool
	heldSince time.Time
}

// place is where a file's reading is, in the lines taken from it.
type place struct {
	readEnd   int64   // end of the last line (or piece of a line) taken from the file
	lineEnd   int64   // end of the last whole line taken: where a commit may stop
	lineStart int64   // start of the line being taken, whose pieces may still come
	piece     bool    // the last line read was cut at max_log_size: the next continues it
	cut       cutLine // with format container: the line the pieces belong to
}

// take moves p over a line, or a piece of one, that ends at end; split says it was cut at the
// reader's maximum, so that the next continues it. It returns where the line it belongs to
// starts, and whether it continues the one before.
func (p *place) take(end int64, split bool) (start int64, piece bool) {
	piece = p.piece
	p.piece = split
	if !piece {
		p.lineStart = p.readEnd
	}
	p.readEnd = end
	if !split {
		p.lineEnd = end
	}
	return p.lineStart, piece
}

// readState is where a file is in its reading, between the tracker's polls.
type readState struct {
	drained bool // Next reached io.EOF since the tracker last handed the file out
	done    bool // read to its end: flushed, merge input finished
	blocked bool // holds max_held_per_file entries in the merge window
}

// lists says which of its owners' lists a file is on, so that it goes on each once.
type lists struct {
	order   bool // reading.order
	idle    bool // reading.idle
	touched bool // checkpoints.touched
}

// fileHeader is a file's header: what its lines gave so far, and whether it is still being read.
type fileHeader struct {
	attrs map[string]any
	open  bool // the lines read so far were all header lines
}

// attrSet is a set of record attributes and their size, for batch.max_bytes.
type attrSet struct {
	m         pcommon.Map
	bytes     int                // of m and of the attributes each record adds
	perRecord bool               // records get attributes of their own (see putPerRecord)
	offsets   bool               // include_file_record_offset: each record gets its offset in the file
	values    *exprvalues.Values // attributes whose expressions read the entry
}

// midLine reports whether reading stopped inside a container line whose pieces are being
// joined. A read round reads such a file on to the line's end before leaving it, so that the
// pieces of lines already on disk are held for one file at a time, not for every file between
// two rounds (at most max_log_size more: a line is cut there).
func (f *tailedFile) midLine() bool {
	for _, s := range f.streams {
		if s.pieces != nil && s.pieces.Pending() {
			return true
		}
	}
	return false
}

// pending reports whether any stream of f holds bytes not yet emitted.
func (f *tailedFile) pending() bool {
	for _, s := range f.streams {
		if s.pending() {
			return true
		}
	}
	return false
}

// settled reports whether every entry read from f has settled.
func (f *tailedFile) settled() bool {
	for _, s := range f.streams {
		if !s.books.Entries.Empty() {
			return false
		}
	}
	return true
}

// committable returns the offset f may be committed to (the first byte a stream still needs,
// at most the end of the last whole line) and the number of records before it.
func (f *tailedFile) committable() ledger.Commit {
	c := ledger.Upto(f.at.lineEnd, f.records)
	for _, s := range f.streams {
		s.need(&c)
	}
	return c
}

// putPerRecord adds to m the attributes of e's record alone: its offset, and the attributes
// whose expressions read the entry.
func (a *attrSet) putPerRecord(m pcommon.Map, e *entry) {
	if a.offsets {
		m.PutInt(attrRecordOffset, e.start)
	}
	if a.values != nil {
		a.values.Render(e.body, m.PutStr)
	}
}

// putPerRecordRaw is putPerRecord for the stanza entry the operators get.
func (a *attrSet) putPerRecordRaw(m map[string]any, e *entry) {
	if a.offsets {
		m[attrRecordOffset] = e.start
	}
	if a.values != nil {
		a.values.Render(e.body, func(k, v string) { m[k] = v })
	}
}

// putHeader adds f's header attributes to m, over the log.file.* ones, as file_log does.
func (f *tailedFile) putHeader(m pcommon.Map) {
	if f.header == nil {
		return
	}
	for k, v := range f.header.attrs {
		if err := m.PutEmpty(k).FromRaw(v); err != nil {
			m.PutStr(k, fmt.Sprint(v))
		}
	}
}
