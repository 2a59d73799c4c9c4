package linestart

import (
	"bytes"
	"encoding/binary"
)

// Match reports whether the pattern matches at the start of line.
func (m *Matcher) Match(line []byte) bool {
	switch m.kind {
	case kindAll:
		return true
	case kindLiteral:
		if len(line) >= 8 {
			return binary.LittleEndian.Uint64(line)&m.mask == m.word &&
				(len(m.lit) <= 8 || bytes.HasPrefix(line[8:], m.lit[8:]))
		}
		return bytes.HasPrefix(line, m.lit)
	case kindBytes:
		if len(line) < len(m.seq) {
			return false
		}
		for i := range m.seq {
			if !m.seq[i].has(line[i]) {
				return false
			}
		}
		return true
	}
	if m.useFirst && (len(line) == 0 || !m.first.has(line[0])) {
		return false
	}
	if !bytes.HasPrefix(line, m.lit) {
		return false
	}
	if m.limit >= 0 && len(line) > m.limit {
		line = line[:m.limit]
	}
	return m.re.Match(line)
}

// MatchLen returns the length of the leftmost-first match of the original pattern at the start of
// line, or -1 if there is none. It runs the full pattern and is meant for rare uses (cutting a
// matched prefix off), not for deciding where entries start.
func (m *Matcher) MatchLen(line []byte) int {
	loc := m.full.FindIndex(line)
	if loc == nil {
		return -1
	}
	return loc[1]
}

// String returns the pattern as given to Compile.
func (m *Matcher) String() string { return m.pattern }
