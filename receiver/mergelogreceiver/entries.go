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
	encoding  string
	parser    *timestamp.Parser // nil without a timestamp section
	resource  pcommon.Map
	static    pcommon.Map // the attributes key
	scratch   []byte      // for omit_pattern with line_end_pattern
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
		encoding:  cfg.Encoding,
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

// body copies the text out as the record body: with utf-8, invalid bytes become U+FFFD (checked
// first, so valid text is copied once); utf-8-raw and nop keep the bytes as they are.
func (p *entryRules) body(text []byte) string {
	if (p.encoding == encodingUTF8 || p.encoding == "utf8") && !utf8.Valid(text) {
		return strings.ToValidUTF8(string(text), "\uFFFD")
	}
	return string(text)
}
