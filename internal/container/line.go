// Package container reads what container runtimes write on a Kubernetes node: log lines in the
// CRI format of containerd and CRI-O or in Docker's json-file format, and the pod log paths
// kubelet lays out.
package container

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/mergelog/otelcol-mergelog/internal/timestamp"
)

// Stream is the output stream a line was written to.
type Stream uint8

const (
	// StreamNone marks a line in neither format: it is passed on as it is.
	StreamNone Stream = iota
	Stdout
	Stderr
)

func (s Stream) String() string {
	switch s {
	case Stdout:
		return "stdout"
	case Stderr:
		return "stderr"
	}
	return ""
}

// Line is one line of a runtime's log file, parsed.
type Line struct {
	Time    int64 // Unix nanoseconds, set by the runtime
	Stream  Stream
	Partial bool   // the runtime split a long line: the next line of this stream continues it
	Log     []byte // the container's output; valid until the next Parse
}

// Parser parses lines, detecting the format of each: Docker's lines are JSON objects, CRI lines
// start with a timestamp. Its buffer holds unescaped JSON strings.
type Parser struct{ buf []byte }

// Parse reads one line (without its newline). A line in neither format comes back with
// StreamNone and Log set to the whole line.
func (p *Parser) Parse(line []byte) Line {
	if len(line) > 0 && line[0] == '{' {
		if l, ok := p.parseDocker(line); ok {
			return l
		}
	} else if l, ok := parseCRI(line); ok {
		return l
	}
	return Line{Log: line}
}

// parseCRI reads "<RFC 3339 time> <stdout|stderr> <tags> <log>", where the first of the
// colon-separated tags is P (partial) or F (full).
func parseCRI(line []byte) (Line, bool) {
	at, n, ok := timestamp.RFC3339Prefix(line)
	if !ok || n >= len(line) || line[n] != ' ' {
		return Line{}, false
	}
	rest := line[n+1:]
	var l Line
	switch {
	case bytes.HasPrefix(rest, []byte("stdout ")):
		l.Stream = Stdout
	case bytes.HasPrefix(rest, []byte("stderr ")):
		l.Stream = Stderr
	default:
		return Line{}, false
	}
	rest = rest[len("stdout "):]
	tags := rest
	if i := bytes.IndexByte(rest, ' '); i >= 0 {
		tags, rest = rest[:i], rest[i+1:]
	} else {
		rest = nil // an empty log line may come without the space after the tags
	}
	if i := bytes.IndexByte(tags, ':'); i >= 0 {
		tags = tags[:i]
	}
	switch string(tags) {
	case "P":
		l.Partial = true
	case "F":
	default:
		return Line{}, false
	}
	l.Time, l.Log = at, rest
	return l, true
}

// parseDocker reads a json-file line: {"log":"…","stream":"stdout","time":"…"} with any other
// members skipped. Docker ends a full line's log with "\n" and leaves it off the pieces of a line
// it split.
func (p *Parser) parseDocker(line []byte) (Line, bool) {
	d := jsonReader{b: line, i: 1}
	var l Line
	var haveLog, haveTime bool
	p.buf = p.buf[:0]
	d.space()
	if d.peek() == '}' {
		return Line{}, false
	}
	for {
		d.space()
		key, ok := d.rawString()
		if !ok {
			return Line{}, false
		}
		d.space()
		if d.peek() != ':' {
			return Line{}, false
		}
		d.i++
		d.space()
		switch string(key) {
		case "log":
			if p.buf, ok = d.appendString(p.buf); !ok {
				return Line{}, false
			}
			haveLog = true
		case "stream":
			s, ok := d.rawString()
			if !ok {
				return Line{}, false
			}
			switch string(s) {
			case "stdout":
				l.Stream = Stdout
			case "stderr":
				l.Stream = Stderr
			default:
				return Line{}, false
			}
		case "time":
			s, ok := d.rawString()
			if !ok {
				return Line{}, false
			}
			at, n, ok := timestamp.RFC3339Prefix(s)
			if !ok || n != len(s) {
				return Line{}, false
			}
			l.Time, haveTime = at, true
		default:
			if !d.skipValue() {
				return Line{}, false
			}
		}
		d.space()
		switch d.peek() {
		case ',':
			d.i++
			continue
		case '}':
			d.i++
		default:
			return Line{}, false
		}
		break
	}
	d.space()
	if d.i != len(line) || !haveLog || !haveTime || l.Stream == StreamNone {
		return Line{}, false
	}
	l.Log = p.buf
	if n := len(l.Log); n > 0 && l.Log[n-1] == '\n' {
		l.Log = l.Log[:n-1]
	} else {
		l.Partial = true
	}
	return l, true
}

// jsonReader walks one JSON text; it reads only what Docker's lines need.
type jsonReader struct {
	b []byte
	i int
}

func (d *jsonReader) peek() byte {
	if d.i < len(d.b) {
		return d.b[d.i]
	}
	return 0
}

func (d *jsonReader) space() {
	for d.i < len(d.b) && (d.b[d.i] == ' ' || d.b[d.i] == '\t' || d.b[d.i] == '\r' || d.b[d.i] == '\n') {
		d.i++
	}
}

// rawString reads a string without escapes (keys and values that never need them) and returns
// its bytes.
func (d *jsonReader) rawString() ([]byte, bool) {
	if d.peek() != '"' {
		return nil, false
	}
	end := bytes.IndexByte(d.b[d.i+1:], '"')
	if end < 0 {
		return nil, false
	}
	s := d.b[d.i+1 : d.i+1+end]
	if bytes.IndexByte(s, '\\') >= 0 {
		return nil, false
	}
	d.i += end + 2
	return s, true
}

// appendString reads a string, unescaping it onto dst.
func (d *jsonReader) appendString(dst []byte) ([]byte, bool) {
	if d.peek() != '"' {
		return dst, false
	}
	d.i++
	for {
		// Copy the run up to the next quote or backslash at once. JSON escapes control
		// characters, so a raw one means the line is not JSON.
		j := d.i
		for j < len(d.b) && d.b[j] != '"' && d.b[j] != '\\' && d.b[j] >= 0x20 {
			j++
		}
		dst = append(dst, d.b[d.i:j]...)
		d.i = j
		if j >= len(d.b) || d.b[j] < 0x20 {
			return dst, false
		}
		if d.b[j] == '"' {
			d.i++
			return dst, true
		}
		if j+1 >= len(d.b) {
			return dst, false
		}
		d.i = j + 2
		switch c := d.b[j+1]; c {
		case '"', '\\', '/':
			dst = append(dst, c)
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, ok := d.hex4(j + 2)
			if !ok {
				return dst, false
			}
			d.i = j + 6
			if utf16.IsSurrogate(r) {
				// A pair is two escapes; a lone half becomes U+FFFD, as encoding/json does.
				if lo, ok := d.lowSurrogate(); ok {
					r = utf16.DecodeRune(r, lo)
				} else {
					r = utf8.RuneError
				}
			}
			dst = utf8.AppendRune(dst, r)
		default:
			return dst, false
		}
	}
}

// lowSurrogate reads a \uXXXX escape holding the second half of a surrogate pair, if one is next.
func (d *jsonReader) lowSurrogate() (rune, bool) {
	if d.i+1 >= len(d.b) || d.b[d.i] != '\\' || d.b[d.i+1] != 'u' {
		return 0, false
	}
	r, ok := d.hex4(d.i + 2)
	if !ok || r < 0xDC00 || r > 0xDFFF {
		return 0, false
	}
	d.i += 6
	return r, true
}

func (d *jsonReader) hex4(i int) (rune, bool) {
	if i+4 > len(d.b) {
		return 0, false
	}
	var r rune
	for _, c := range d.b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// skipValue passes over any JSON value (Docker adds "attrs" objects with some log options). It
// checks only the nesting: a line that gets this far is a Docker line.
func (d *jsonReader) skipValue() bool {
	depth, start := 0, d.i
	for d.i < len(d.b) {
		switch c := d.b[d.i]; c {
		case '"':
			if _, ok := d.appendString(nil); !ok {
				return false
			}
			if depth == 0 {
				return true
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return d.i > start // the end of the enclosing object: a scalar just ended
			}
			depth--
			if depth == 0 {
				d.i++
				return true
			}
		case ',':
			if depth == 0 {
				return d.i > start
			}
		}
		d.i++
	}
	return false
}
