// Package multiline joins log lines into entries (a stack trace under its first line, say), with
// the modes of Logtail/LoongCollector: which of the start, continue and end patterns are set picks
// the mode. Patterns match at the start of a line (package linestart), so each check costs about the
// same on any line length.
//
// Lines are joined with '\n'. A line that belongs to no entry is never dropped: it becomes an entry
// of its own and is counted as an orphan. Below, "open" means an entry is being collected, "emit"
// hands the collected lines to the sink as one entry, and "orphan" hands one line to the sink.
//
//   - none (no pattern): every line is an entry.
//   - start: a start line emits the open entry, if any, and opens a new one; other lines join the
//     open entry. Lines before the first start line (or after Flush) are an entry of their own, as
//     file_log gives them: one entry up to the next start line, not an orphan each.
//   - continue: the same as start with "start" meaning "not continue": a run of continuation lines
//     joins the line before it; at the very beginning (or after Flush) the run is an entry.
//   - start+continue: a start line opens an entry; continuation lines join it; any other line
//     emits it and is an orphan, or opens a new entry if it is a start line. When an entry is open,
//     continue is checked first.
//   - start+end: a start line opens an entry; every line joins it, up to and including a line that
//     matches end, which emits it. A start line that also matches end is an entry of one line
//     (LoongCollector would keep that entry open until the next end line). Lines outside entries are
//     orphans.
//   - continue+end: a continuation line opens an entry and further ones join it; an end line joins
//     and emits it. Another line ends the run without an end: the run and that line go out as
//     orphans, line by line. Outside an entry, an end line that is not a continuation line is an
//     entry of one line; other lines are orphans.
//   - end: every line joins the open entry; an end line emits it (file_log's line_end_pattern).
//   - detect (Config.Detect): no pattern; a stacktrace.Detector decides, line by line, whether a
//     line joins the open entry (a stack trace's lines, the log line a trace's frames follow) or
//     starts the next one. Every line waits in the open entry until the next line (or Flush) says
//     which. Lines the Detector calls Maybe join it tentatively: when a Start comes instead of
//     the Join that confirms them, the entry goes out without them, and they are given to the
//     Detector again, the first of them starting an entry (see detect.go).
//
// Start, continue and end together are rejected: the order of the checks would be arbitrary.
//
// Flush emits what is open as one entry, as file_log flushes its buffer; only start+end and
// continue+end, which file_log does not have, give the lines that never saw their end line one by
// one as orphans, as Logtail does. Call it at the end of the input, and when the input has been
// idle for a while: an open entry otherwise waits for the line that closes it (the next line that
// does not join it, or its end line). A writer slower than that idle period gets its entry cut.
//
// Caps: with MaxLines, an entry that has MaxLines lines is emitted before another line would join
// it, and the line starts a new entry in the same state (so the rest of a long stack trace keeps
// joining). With MaxBytes and without Truncate, the text is cut at exactly MaxBytes bytes, as
// file_log cuts its buffer: a line that would take the entry past MaxBytes fills it up to MaxBytes
// (its '\n' separator counts, and may be the last byte), the entry is emitted, and the rest of the
// line starts the next entry in the same state. (When the entry is exactly full, the separator is
// dropped rather than starting the next entry: file_log keeps it there, and trims it by default.) Such a piece carries the end offset of the last
// line that ends in it, so that the line it was cut in is still waiting for the entry that has its
// end (a reader of the end offsets never passes a line whose rest was not emitted yet). A line of
// MaxBytes bytes or more is the exception: it emits the open entry first and is cut on its own into
// pieces of MaxBytes bytes, each carrying an offset inside that line (its end offset less one),
// so that the line is still waiting until its last piece, which carries its end; that shorter piece starts
// the next entry (a caller's reader that cuts long lines into pieces of MaxBytes bytes gives them
// this way: each piece an entry, never joined to the next with a '\n' that is not in the input).
// With Truncate, the first MaxBytes bytes of the entry are kept and the rest, up to the end of the
// entry, is discarded and counted.
//
// In steady state a line costs one or two pattern checks and one copy into a reused buffer (none
// for a line that is an entry on its own: the sink gets the caller's bytes), with no allocation.
package multiline

import (
	"errors"

	"github.com/mergelog/otelcol-mergelog/internal/linestart"
	"github.com/mergelog/otelcol-mergelog/internal/longbuf"
	"github.com/mergelog/otelcol-mergelog/internal/stacktrace"
)

// Config selects the mode and the caps.
type Config struct {
	// Start, Continue and End are the patterns; which of them are non-nil picks the mode.
	Start, Continue, End *linestart.Matcher
	// Detect, when not empty, joins the stack traces of these languages (no pattern may be set).
	Detect stacktrace.Set
	// MaxLines > 0 caps the lines of an entry; 0 means no cap.
	MaxLines int
	// MaxBytes > 0 caps the length of an entry's text; 0 means no cap. See Truncate.
	MaxBytes int
	// Truncate discards the bytes of an entry beyond MaxBytes (and counts them) instead of
	// splitting the entry.
	Truncate bool
}

// Sink receives each entry: its lines joined with '\n', without a trailing newline, and end, the
// end offset the caller gave with the entry's last line. text is valid only during the call, and
// the sink must not call back into the Joiner.
type Sink func(text []byte, end int64)

// Stats counts what a Joiner did.
type Stats struct {
	Entries        int64 // entries given to the sink, orphans and pieces included
	Orphans        int64 // lines that belonged to no entry and went out on their own
	Split          int64 // entries emitted early because of MaxLines or MaxBytes
	Truncated      int64 // entries (or runs of orphans) that lost bytes to Truncate
	TruncatedBytes int64 // bytes discarded by Truncate
}

type mode uint8

// The modes that give unmatched lines out one by one come last: add tests mode >= modeStartEnd.
const (
	modeNone mode = iota
	modeStart
	modeContinue
	modeStartContinue
	modeEnd
	modeStartEnd
	modeContinueEnd
	modeDetect
)

// Joiner joins lines into entries. It is not safe for concurrent use.
type Joiner struct {
	cfg  Config
	mode mode
	sink Sink
	open bool // an entry is being collected (it may have no lines yet right after a cap)

	buf   []byte // text of the open entry, as far as kept
	full  int    // length the text would have without Truncate
	lines int
	end   int64 // end offset of the last line that ends in the open entry; -1: none yet
	// bounds marks where each kept line of the open entry ends, in start+end and continue+end
	// only: there an entry that never sees its end line goes out line by line.
	bounds []bound

	detect *detecting // in detect mode

	stats Stats
}

type bound struct {
	to  int // the line is buf[previous to + 1 : to]
	end int64
}

// New returns a Joiner that gives entries to sink.
func New(cfg Config, sink Sink) (*Joiner, error) {
	if sink == nil {
		return nil, errors.New("multiline: nil sink")
	}
	if cfg.MaxLines < 0 || cfg.MaxBytes < 0 {
		return nil, errors.New("multiline: negative MaxLines or MaxBytes")
	}
	j := &Joiner{cfg: cfg, sink: sink, end: -1}
	switch start, cont, end := cfg.Start != nil, cfg.Continue != nil, cfg.End != nil; {
	case cfg.Detect != 0 && (start || cont || end):
		return nil, errors.New("multiline: stack trace detection cannot be combined with patterns")
	case cfg.Detect != 0:
		j.mode = modeDetect
		j.detect = &detecting{det: stacktrace.New(cfg.Detect)}
	case start && cont && end:
		return nil, errors.New("multiline: start, continue and end patterns cannot all be set: " +
			"use start+continue, start+end or continue+end")
	case start && cont:
		j.mode = modeStartContinue
	case start && end:
		j.mode = modeStartEnd
	case cont && end:
		j.mode = modeContinueEnd
	case start:
		j.mode = modeStart
	case cont:
		j.mode = modeContinue
	case end:
		j.mode = modeEnd
		j.open = true
	}
	return j, nil
}

// Add gives the Joiner the next line, without its newline, and the end offset of that line in the
// input (what a checkpoint after this line would store). It may call the sink any number of times.
func (j *Joiner) Add(line []byte, end int64) {
	switch j.mode {
	case modeNone:
		j.single(line, end)
	case modeStart, modeContinue:
		var opens bool
		if j.mode == modeStart {
			opens = j.cfg.Start.Match(line)
		} else {
			opens = !j.cfg.Continue.Match(line)
		}
		if opens {
			j.emit()
		}
		j.add(line, end)
	case modeStartContinue:
		if j.open && j.cfg.Continue.Match(line) {
			j.add(line, end)
			return
		}
		j.emit()
		j.open = j.cfg.Start.Match(line)
		if j.open {
			j.add(line, end)
		} else {
			j.orphan(line, end)
		}
	case modeStartEnd:
		if !j.open && !j.cfg.Start.Match(line) {
			j.orphan(line, end)
			return
		}
		j.open = true
		j.add(line, end)
		if j.cfg.End.Match(line) {
			j.emit()
			j.open = false
		}
	case modeContinueEnd:
		switch {
		case j.cfg.Continue.Match(line):
			j.open = true
			j.add(line, end)
		case j.open:
			j.add(line, end)
			if j.cfg.End.Match(line) {
				j.emit()
			} else {
				j.unmatched()
			}
			j.open = false
		case j.cfg.End.Match(line):
			j.single(line, end)
		default:
			j.orphan(line, end)
		}
	case modeEnd:
		j.add(line, end)
		if j.cfg.End.Match(line) {
			j.emit()
		}
	case modeDetect:
		j.addDetected(line, end)
	}
}

// Flush emits the open entry, if any (see the package doc for start+end and continue+end).
func (j *Joiner) Flush() {
	switch j.mode {
	case modeStartEnd, modeContinueEnd:
		j.unmatched()
	case modeDetect:
		j.flushDetected()
	default:
		j.emit()
	}
	j.open = j.mode == modeEnd
}

// Pending reports whether lines are waiting for Add or Flush to emit them.
func (j *Joiner) Pending() bool { return j.lines > 0 }

// Held returns the bytes of the open entry's text, which the Joiner holds until the entry ends.
func (j *Joiner) Held() int { return len(j.buf) }

// Release drops what detection queued, if it grew beyond longbuf.Keep: a burst of lines must
// not cost an idle input its size for the rest of its life; call Release when the input goes
// quiet. (The open entry's buffer, if a long entry grew it, goes back as the entry ends.)
func (j *Joiner) Release() {
	if j.detect != nil {
		j.detect.release()
	}
}

// Stats returns the counters so far.
func (j *Joiner) Stats() Stats { return j.stats }

// add appends line to the open entry. If the line would take the entry past a cap, the entry is
// emitted first (MaxLines), or filled up to MaxBytes and emitted (see the package doc), and the
// line, or its rest, starts the next one.
func (j *Joiner) add(line []byte, end int64) {
	if j.lines > 0 && j.lines == j.cfg.MaxLines {
		j.stats.Split++
		j.emit()
	}
	maxBytes := j.cfg.MaxBytes
	if maxBytes > 0 && !j.cfg.Truncate {
		j.addSplit(line, end, maxBytes)
		return
	}

	n := len(line)
	if j.lines > 0 {
		n++ // the '\n' before it
	}
	keep := n
	if maxBytes > 0 {
		keep = min(n, maxBytes-len(j.buf))
		j.stats.TruncatedBytes += int64(n - keep)
	}
	// A line of which not even the separator fits leaves no trace in the text.
	if keep > 0 || j.lines == 0 {
		j.buf = longbuf.Grow(j.buf, keep)
		if j.lines > 0 {
			j.buf = append(j.buf, '\n')
			keep--
		}
		j.buf = append(j.buf, line[:keep]...)
		j.bound(end)
	}
	j.full += n
	j.lines++
	j.end = end
}

// addSplit is add with MaxBytes and without Truncate: the text is cut at exactly maxBytes.
func (j *Joiner) addSplit(line []byte, end int64, maxBytes int) {
	if len(line) >= maxBytes {
		// A line as long as an entry may be a piece of a longer line the caller cut: it joins
		// nothing before it, so that pieces are never joined with a '\n'.
		if j.lines > 0 {
			j.stats.Split++
			j.emit()
		}
		for len(line) > maxBytes {
			j.stats.Split++
			// An offset inside the line, not its end: the line is not done until its last
			// piece, so a reader of the end offsets keeps it waiting.
			j.out(line[:maxBytes], end-1)
			line = line[maxBytes:]
		}
	}
	// line is shorter than an entry now: one cut at most. A cut fills the entry up to exactly
	// maxBytes (the '\n' before line first) and emits it; when the entry is full already, the
	// '\n' is dropped. The piece ends inside line, and carries the end of the last line that
	// ends in it (there is one: an entry has lines when line does not fit), so that line is
	// still waiting for the entry with its rest.
	j.buf = longbuf.Grow(j.buf, 1+len(line))
	if j.lines > 0 && len(j.buf)+1+len(line) > maxBytes {
		if room := maxBytes - len(j.buf); room > 0 {
			j.buf = append(j.buf, '\n')
			j.buf = append(j.buf, line[:room-1]...)
			line = line[room-1:]
		}
		j.stats.Split++
		j.out(j.buf, j.end)
		j.reset()
	}
	if j.lines > 0 {
		j.buf = append(j.buf, '\n')
	}
	j.buf = append(j.buf, line...)
	j.bound(end)
	j.full = len(j.buf)
	j.lines++
	j.end = end
}

// bound records that the line just appended, which ends at end, ends at the end of the text.
func (j *Joiner) bound(end int64) {
	if j.mode == modeStartEnd || j.mode == modeContinueEnd || j.detect != nil && j.detect.tentative {
		j.bounds = append(j.bounds, bound{to: len(j.buf), end: end})
	}
}

// emit gives the open entry to the sink, if it has lines.
func (j *Joiner) emit() {
	if j.lines == 0 {
		return
	}
	if j.full > len(j.buf) {
		j.stats.Truncated++
	}
	j.out(j.buf, j.end)
	j.reset()
}

// unmatched gives the lines of the open entry to the sink one by one, as orphans.
func (j *Joiner) unmatched() {
	if j.full > len(j.buf) {
		j.stats.Truncated++
	}
	from := 0
	for _, b := range j.bounds {
		j.stats.Orphans++
		j.out(j.buf[from:b.to], b.end)
		from = b.to + 1
	}
	j.reset()
}

// single gives line to the sink as an entry of its own (caps apply); nothing is open. The line
// goes out as it is, without a copy into buf: that is what add and emit would give the sink.
func (j *Joiner) single(line []byte, end int64) {
	switch maxBytes := j.cfg.MaxBytes; {
	case maxBytes <= 0 || len(line) <= maxBytes:
	case j.cfg.Truncate:
		j.stats.Truncated++
		j.stats.TruncatedBytes += int64(len(line) - maxBytes)
		line = line[:maxBytes]
	default:
		for len(line) > maxBytes {
			j.stats.Split++
			// An offset inside the line, not its end: the line is not done until its last
			// piece, so a reader of the end offsets keeps it waiting.
			j.out(line[:maxBytes], end-1)
			line = line[maxBytes:]
		}
	}
	j.out(line, end)
}

// orphan is single for a line that belongs to no entry.
func (j *Joiner) orphan(line []byte, end int64) {
	j.stats.Orphans++
	j.single(line, end)
}

func (j *Joiner) out(text []byte, end int64) {
	j.stats.Entries++
	j.sink(text, end)
}

func (j *Joiner) reset() {
	j.buf = longbuf.Reset(j.buf)
	j.full = 0
	j.lines = 0
	j.end = -1
	j.bounds = j.bounds[:0]
	if j.detect != nil {
		j.detect.tentative = false
	}
}
