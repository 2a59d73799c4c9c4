package mergelogreceiver

import (
	"time"

	"github.com/mergelog/otelcol-mergelog/internal/container"
	"github.com/mergelog/otelcol-mergelog/internal/ledger"
	"github.com/mergelog/otelcol-mergelog/internal/multiline"
)

// attrIOStream is the attribute of a container's output stream, as file_log's container parser
// names it.
const attrIOStream = "log.iostream"

// stream is one sequence of lines joined into entries: a file's lines or, with format container,
// one output stream of the container (stdout and stderr interleave line by line in one file,
// and each is joined on its own).
type stream struct {
	f      *tailedFile
	kind   container.Stream
	joiner *multiline.Joiner
	books  ledger.Books // its entries not yet settled and its lines not yet in an entry
	attrs  attrSet
	pieces *container.Reassembler // with format container: the pieces of split lines
	// With the native container operator, its entries carry file_log's logtag attribute: the
	// runtime's tag of the first piece of their line (recombine keeps the first entry's).
	logtags bool
	logtag  string // of the line being joined; "" for Docker's lines, which have none
	// begun is set once the stream took a piece in this file; waitSince is when its pieces began
	// to wait at the end of the file for the rest of their line (zero: they do not; splitwait.go).
	begun     bool
	waitSince time.Time
	// lent: the pieces this stream handed to the next file's stream, which it still needs until
	// the line they began is committed there; borrowed: the pieces this stream took over.
	lent, borrowed *loan
}

// add gives the joiner one line, from start to end in the file, with the runtime's time at.
func (s *stream) add(line []byte, start, end, at int64) {
	if b := s.borrowed; b != nil && b.end == 0 {
		b.end = end // the first line after a takeover is the one taken over
	}
	s.books.Lines.Push(ledger.Line{Start: start, End: end, At: at})
	s.joiner.Add(line, end)
}

// pending reports whether the stream holds bytes not yet in an emitted entry.
func (s *stream) pending() bool {
	return (s.pieces != nil && s.pieces.Pending()) || s.joiner.Pending()
}

// flush emits what the stream holds: the pieces of a split line as a line, the open entry.
func (s *stream) flush() {
	if s.pieces != nil {
		s.pieces.Flush()
	}
	s.joiner.Flush()
}

// need holds c back to the first byte the stream still needs.
func (s *stream) need(c *ledger.Commit) {
	c.Need(s.books.Oldest())
	if s.pieces != nil {
		c.Need(s.pieces.Oldest())
	}
	if l := s.lent; l != nil {
		if l.repaid {
			s.lent = nil
		} else {
			c.Need(l.start, 0, true)
		}
	}
}

// loan links the two files of a line split across a rotation: the file whose end holds the
// line's first pieces may be committed past them only once the line, taken over by the next
// file's stream, is committed there. Otherwise a crash in between would restart the next file
// before the line and the first after its pieces: the line would come without its beginning.
type loan struct {
	from   *tailedFile // the lending file
	start  int64       // of the first piece, in the lending file
	end    int64       // of the line in the borrowing file, once read there; 0 until then
	repaid bool        // the borrowing file was committed past end
}
