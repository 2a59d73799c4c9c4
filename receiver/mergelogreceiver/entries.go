package mergelogreceiver

import (
	"bytes"
	"sort"
	"strings"
	"unicode/utf8"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/mergelog/otelcol-mergelog/internal/linestart"
	"github.com/mergelog/otelcol-mergelog/internal/multiline"
	"github.com/mergelog/otelcol-mergelog/internal/timestamp"
)

// entryRules are what every file shares: how lines become entries and entries become records.
type entryRules struct {
	join      multiline.Config
	omitStart *linestart.Matcher // with omit_pattern: cut from the start of each entry
	omitEnd   *linestart.Matcher // with omit_pattern: cut from the start of each entry's last line
	trimLeft  bool
	trimRight bool
	validUTF8 bool              // utf-8: invalid bytes become U+FFFD
	parser    *timestamp.Parser // nil without a timestamp section
	resource  pcommon.Map
	static    pcommon.Map // the attributes key
	scratch   []byte      // for omit_pattern with line_end_pattern
	arena     arena       // the bodies
}

// newEntryRules compiles cfg; Validate has checked every part of it.
func newEntryRules(cfg *Config) (entryRules, error) {
	p := entryRules{
		join: multiline.Config{
			MaxLines: cfg.Multiline.MaxLines,
			MaxBytes: int(cfg.MaxLogSize),
			Truncate: cfg.MaxLogSizeBehavior == behaviorTrunc,
		},
		trimLeft:  !cfg.PreserveLeadingWhitespaces,
		trimRight: !cfg.PreserveTrailingWhitespaces,
		validUTF8: cfg.Encoding == encodingUTF8 || cfg.Encoding == "utf8",
		resource:  staticMap(cfg.Resource),
		static:    staticMap(cfg.Attributes),
	}
	var err error
	for _, m := range []struct {
		pattern string
		dst     **linestart.Matcher
	}{
		{cfg.Multiline.LineStartPattern, &p.join.Start},
		{cfg.Multiline.LineContinuePattern, &p.join.Continue},
		{cfg.Multiline.LineEndPattern, &p.join.End},
	} {
		if m.pattern != "" {
			if *m.dst, err = linestart.Compile(m.pattern); err != nil {
				return p, err
			}
		}
	}
	if cfg.Multiline.OmitPattern {
		p.omitStart, p.omitEnd = p.join.Start, p.join.End
	}
	if cfg.Timestamp != nil {
		tc, err := cfg.Timestamp.parserConfig()
		if err != nil {
			return p, err
		}
		if p.parser, err = timestamp.New(tc); err != nil {
			return p, err
		}
	}
	return p, nil
}

// staticMap turns a config map into attributes, in key order so that records are reproducible.
func staticMap(kv map[string]string) pcommon.Map {
	m := pcommon.NewMap()
	keys := make([]string, 0, len(kv))
	for k := range kv {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	m.EnsureCapacity(len(keys))
	for _, k := range keys {
		m.PutStr(k, kv[k])
	}
	return m
}

// shape applies omit_pattern and the whitespace trimming to an entry's text, as file_log does to
// its tokens (whole entries: indentation inside a multiline entry is kept).
func (p *entryRules) shape(text []byte) []byte {
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
// U+FFFD; utf-8-raw and nop keep the bytes as they are.
func (p *entryRules) body(text []byte) string {
	if p.validUTF8 && !utf8.Valid(text) {
		text = bytes.ToValidUTF8(text, []byte("\uFFFD"))
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
