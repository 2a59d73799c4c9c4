package mergelogreceiver

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/mergelog/otelcol-mergelog/internal/linestart"
	"github.com/mergelog/otelcol-mergelog/internal/textcoding"
)

// bodyRules make an entry's text its record body, as file_log shapes its tokens: omit_pattern,
// whitespace trimming, the encoding.
type bodyRules struct {
	omitStart *linestart.Matcher // cut from the start of each entry
	omitEnd   *linestart.Matcher // cut from the start of each entry's last line
	trimLeft  bool
	trimRight bool
	validUTF8 bool   // utf-8: invalid bytes become U+FFFD
	scratch   []byte // for omit_pattern with line_end_pattern
	valid     []byte // for the text of a body with invalid UTF-8
	arena     arena  // the bodies
}

func newBodyRules(cfg *Config, c *compiled) bodyRules {
	return bodyRules{
		omitStart: c.omitStart,
		omitEnd:   c.omitEnd,
		trimLeft:  !cfg.PreserveLeadingWhitespaces,
		trimRight: !cfg.PreserveTrailingWhitespaces,
		validUTF8: cfg.Encoding.validUTF8(),
	}
}

// shape applies omit_pattern and the whitespace trimming to an entry's text, as file_log does to
// its tokens (whole entries: indentation inside a multiline entry is kept).
func (p *bodyRules) shape(text []byte) []byte {
	if p.omitStart != nil {
		if n := p.omitStart.MatchLen(text); n > 0 {
			text = text[n:]
		}
	}
	if p.omitEnd != nil {
		last := bytes.LastIndexByte(text, '\n') + 1
		if n := p.omitEnd.MatchLen(text[last:]); n > 0 {
			p.scratch = append(append(p.scratch[:0], text[:last]...), text[last+n:]...)
			text = p.scratch
		}
	}
	if p.trimLeft {
		for len(text) > 0 && isSpace(text[0]) {
			text = text[1:]
		}
	}
	if p.trimRight {
		for len(text) > 0 && isSpace(text[len(text)-1]) {
			text = text[:len(text)-1]
		}
	}
	return text
}

// isSpace is file_log's whitespace for trimming.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// body copies the text out as the record body, into the arena: with utf-8, invalid bytes become
// U+FFFD as file_log's decoder replaces them (see textcoding.AppendValid); utf-8-raw and nop keep the
// bytes as they are.
func (p *bodyRules) body(text []byte) string {
	if p.validUTF8 && !utf8.Valid(text) {
		p.valid = textcoding.AppendValid(p.valid[:0], text)
		text = p.valid
	}
	return p.arena.str(text)
}

// arenaChunk is the size of the arena's chunks, the largest of Go's small size classes (a larger
// allocation takes the heap lock); a body costs an allocation of its own only when it is larger
// than a quarter of it.
const arenaChunk = 32 << 10

// arena makes record bodies without an allocation each: bodies are cut from the string of a
// strings.Builder, which only appends (so the bytes of a string it gave out are never written
// again) and, unlike make, does not zero its buffer first. A full chunk is replaced, and is
// garbage once no body in it is referenced any more.
type arena struct{ chunk strings.Builder }

func (a *arena) str(text []byte) string {
	if len(text) > a.chunk.Cap()-a.chunk.Len() {
		if len(text) > arenaChunk/4 {
			return string(text)
		}
		a.chunk.Reset()
		a.chunk.Grow(arenaChunk)
	}
	start := a.chunk.Len()
	a.chunk.Write(text)
	return a.chunk.String()[start:]
}
