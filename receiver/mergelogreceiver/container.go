package mergelogreceiver

import "github.com/mergelog/otelcol-mergelog/internal/container"

// cutLine is the runtime's line that a line cut at max_log_size belongs to: the pieces after
// the first carry no prefix of their own.
type cutLine struct {
	stream  container.Stream
	at      int64
	partial bool // the runtime's flag for the whole line
}

// containerLine parses one line of a runtime's log file and returns it with the stream it was
// written to; piece is true when the line continues one the reader cut at its maximum.
func (f *tailedFile) containerLine(line []byte, piece bool) (*stream, container.Line) {
	var l container.Line
	if piece {
		l = container.Line{Time: f.at.cut.at, Stream: f.at.cut.stream, Partial: f.at.cut.partial, Log: line}
	} else {
		l = f.parser.Parse(line)
		f.at.cut = cutLine{stream: l.Stream, at: l.Time, partial: l.Partial}
	}
	s := f.streams[l.Stream]
	if s.logtags && !piece && !s.pieces.Pending() {
		s.logtag = criTag(line, l.Partial)
	}
	return s, l
}

// The attribute file_log's container operator gives each CRI entry: the runtime's tag.
const attrLogTag = "logtag"

// criTag is file_log's logtag of a line: P or F for a CRI line, none for Docker's.
func criTag(line []byte, partial bool) string {
	switch {
	case len(line) > 0 && line[0] == '{':
		return ""
	case partial:
		return "P"
	}
	return "F"
}
