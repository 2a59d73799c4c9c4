package mergelogreceiver

import (
	"github.com/mergelog/otelcol-mergelog/internal/container"
	"github.com/mergelog/otelcol-mergelog/internal/multiline"
)

// attrIOStream is the attribute of a container's output stream, as file_log's container parser
// names it.
const attrIOStream = "log.iostream"

// stream is one sequence of lines joined into entries: a file's lines or, with format container,
// one output stream of the container (stdout and stderr interleave line by line in one file,
// and each is joined on its own).
type stream struct {
	f      *fileState
	kind   container.Stream
	joiner *multiline.Joiner
	out    outstanding // its entries not yet settled, in order
	held   lineQueue   // its lines given to the joiner and not yet in an emitted entry
	attrs  attrSet

	// With format container: the pieces of a line the runtime split (P lines), waiting for the
	// last piece.
	pieces     []byte
	piecesOn   bool
	piecesAt   int64 // start offset of the first piece
	piecesEnd  int64 // end offset of the last piece
	piecesTime int64 // the runtime's time of the first piece
}

func (r *mergelogReceiver) newStream(f *fileState, kind container.Stream) *stream {
	s := &stream{f: f, kind: kind}
	s.joiner, _ = multiline.New(r.rules.join, func(text []byte, end int64) { r.entry(s, text, end) }) // config validated
	return s
}

// add gives the joiner one line that starts at start.
func (s *stream) add(line []byte, start, end, at int64) {
	s.held.push(heldLine{start: start, end: end, at: at})
	s.joiner.Add(line, end)
}

// pending reports whether the stream holds bytes not yet in an emitted entry.
func (s *stream) pending() bool { return s.piecesOn || s.joiner.Pending() }

// flush emits what the stream holds: the pieces of a split line as a line, the open entry.
func (s *stream) flush() {
	if s.piecesOn {
		s.addPieces()
	}
	s.joiner.Flush()
}

// addPieces gives the joiner the pieces collected so far as one line.
func (s *stream) addPieces() {
	s.piecesOn = false
	s.add(s.pieces, s.piecesAt, s.piecesEnd, s.piecesTime)
	s.pieces = s.pieces[:0]
}

// oldest returns the start offset of the first byte the stream still needs (of its first entry
// not yet settled, else of its first line not yet emitted, else of its pieces) and, when that is
// an entry, its record number; ok is false when the stream needs nothing.
func (s *stream) oldest() (start, record int64, ok bool) {
	s.out.advance()
	if start, record, ok = s.out.oldest(); ok {
		return start, record, true
	}
	if l, ok := s.held.first(); ok {
		return l.start, 0, true
	}
	return s.piecesAt, 0, s.piecesOn
}

// heldLine is a line given to a joiner: where it is in the file and the runtime's time of it.
type heldLine struct {
	start, end, at int64
}

// lineQueue is a FIFO of held lines; the joiner emits them in order.
type lineQueue struct {
	fifo[heldLine]
	last heldLine // the last line dropped
}

func (q *lineQueue) first() (heldLine, bool) {
	if q.len() == 0 {
		return heldLine{}, false
	}
	return *q.at(0), true
}

// popThrough drops the lines that end at or before end (those of an emitted entry) and returns
// the first of them; when there is none, the entry is a further piece of a line longer than
// max_log_size, cut by the joiner, and that line is returned again.
func (q *lineQueue) popThrough(end int64) heldLine {
	first, ok := q.first()
	if !ok || first.end > end {
		return q.last
	}
	for q.len() > 0 && q.at(0).end <= end {
		q.last = *q.at(0)
		q.pop()
	}
	return first
}

// cutLine is the runtime's line that a line cut at max_log_size belongs to: the pieces after
// the first carry no prefix of their own.
type cutLine struct {
	stream  container.Stream
	at      int64
	partial bool // the runtime's flag for the whole line
}

// containerLine parses one line of a runtime's log file and hands its content to the stream it
// was written to: a split line's pieces are collected until the last one, up to max_log_size
// (beyond it, split makes the collected pieces a line of their own; truncate drops the rest).
func (r *mergelogReceiver) containerLine(f *fileState, line []byte, start, end int64, piece bool) {
	var l container.Line
	if piece {
		l = container.Line{Time: f.cut.at, Stream: f.cut.stream, Partial: f.cut.partial, Log: line}
	} else {
		l = f.parser.Parse(line)
		f.cut = cutLine{stream: l.Stream, at: l.Time, partial: l.Partial}
	}
	s := f.streams[l.Stream]
	if l.Stream == container.StreamNone {
		if !piece || !r.rules.join.Truncate {
			s.add(l.Log, start, end, 0)
		}
		return
	}
	if !l.Partial && !f.piece && !s.piecesOn {
		s.add(l.Log, start, end, l.Time)
		return
	}
	if s.piecesOn && len(s.pieces)+len(l.Log) > r.rules.join.MaxBytes {
		if r.rules.join.Truncate {
			l.Log = l.Log[:max(r.rules.join.MaxBytes-len(s.pieces), 0)]
		} else {
			s.addPieces()
		}
	}
	if !s.piecesOn {
		s.piecesOn, s.piecesAt, s.piecesTime = true, start, l.Time
	}
	s.pieces = append(s.pieces, l.Log...)
	s.piecesEnd = end
	if !l.Partial && !f.piece {
		s.addPieces()
	}
}
