// Package linestart decides whether a log line starts with a user's pattern, in constant time per
// line for the patterns people write.
//
// # Semantics
//
// A line matches when the pattern matches at byte 0 of the line, i.e. exactly when
//
//	regexp.MustCompile(`\A(?:` + pattern + `)`).Match(line)
//
// is true. The match may end anywhere: the rest of the line is not looked at. A leading ^ is optional
// and means the same (every alternative is anchored, so in `^a|b` the b is anchored too). The syntax
// is Go's (RE2, Perl flags); without (?m), $ means the end of the line. A pattern that can match the
// empty string, such as `x*` or the empty pattern, matches every line. Invalid UTF-8 in a line is
// read as in package regexp: each bad byte is U+FFFD.
//
// # Why and how
//
// Running a pattern like `cnt.*` with package regexp walks the whole line for the `.*`, and an
// unanchored pattern scans every non-matching line to its end; the cost grows with the line. Since
// only "does a match start at byte 0" matters, Compile rewrites the parsed pattern (never its text)
// into one that accepts the same lines but stops early: tails that can match the empty string are
// dropped, a tail X+ becomes X, ^ in first position goes, and the result is anchored with \A. The
// rewritten pattern is then matched by the cheapest sufficient means: bytes.HasPrefix for a plain
// literal, a table per byte for a fixed run of ASCII sets (dates, levels), otherwise a first-byte set
// and a required literal prefix in front of package regexp, on a prefix of the line when the match
// length is bounded.
package linestart

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"regexp"
	"regexp/syntax"
	"unicode"
	"unicode/utf8"
)

// Matcher is a compiled line-start pattern. It is safe for concurrent use.
type Matcher struct {
	pattern string
	kind    kind
	// lit is the whole literal (kindLiteral) or a literal every match starts with (kindRegexp).
	lit []byte
	// word and mask hold the first 8 bytes of lit (kindLiteral), little-endian: one load and
	// compare decides short literals, where bytes.HasPrefix costs a call to memequal.
	word, mask uint64
	// seq holds one byte set per byte of the line (kindBytes).
	seq []byteSet
	// first is the set of bytes a match can start with (kindRegexp, when useFirst).
	first    byteSet
	useFirst bool
	// limit is how many leading bytes of a line decide the match (kindRegexp), or -1 for all.
	limit int
	re    *regexp.Regexp // the rewritten pattern, anchored
	full  *regexp.Regexp // the original pattern, anchored, for MatchLen
}

type kind uint8

const (
	kindAll     kind = iota // matches every line
	kindLiteral             // bytes.HasPrefix(line, lit)
	kindBytes               // line[i] in seq[i] for every i
	kindRegexp              // first byte, prefix, then re on line[:limit]
)

// Compile parses pattern and prepares the fastest matcher that agrees with the semantics in the
// package doc. The error wraps package regexp's *syntax.Error.
func Compile(pattern string) (*Matcher, error) {
	// Parse the pattern alone first: wrapped in \A(?:…), a pattern such as `a)|(b` would parse.
	tree, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, fmt.Errorf("line-start pattern: %w", err)
	}
	full, err := regexp.Compile(`\A(?:` + pattern + `)`)
	if err != nil {
		// The pattern parsed alone, so it ends inside \Q… (which would quote the closing
		// parenthesis) or is nested too deep (which this does not fix).
		full, err = regexp.Compile(`\A(?:` + pattern + `\E)`)
	}
	if err != nil {
		return nil, fmt.Errorf("line-start pattern: %w", err)
	}
	m := &Matcher{pattern: pattern, full: full, limit: -1}

	// Simplify first: it expands counted repetitions (x{2,5} is xx(?:x(?:xx?)?)?, x{3,} is xxx+),
	// so the rules below only meet *, + and ?, and x{n,} → x{n} and x{n,m} → x{n} follow from
	// them. trimTail before dropStart: unwrapping a tail (^a)+ brings its ^ to first position.
	rewritten := dropStart(trimTail(tree.Simplify())).String()
	// Analyse the parsed form of exactly the text that is compiled, so that the fast paths below
	// describe the program that runs.
	norm, err := syntax.Parse(rewritten, syntax.Perl)
	if err != nil {
		return nil, fmt.Errorf("line-start pattern: rewriting %q: %w", pattern, err)
	}
	norm = norm.Simplify()

	if alwaysEmpty(norm) {
		m.kind = kindAll
		return m, nil
	}
	if lit, ok := plainLiteral(norm); ok {
		m.kind = kindLiteral
		m.lit = lit
		var w [8]byte
		for i := range copy(w[:], lit) {
			m.mask |= 0xff << (8 * i)
		}
		m.word = binary.LittleEndian.Uint64(w[:])
		return m, nil
	}
	if seq, ok := byteSeq(norm); ok {
		m.kind = kindBytes
		m.seq = seq
		return m, nil
	}

	m.kind = kindRegexp
	if m.re, err = regexp.Compile(`\A(?:` + rewritten + `)`); err != nil {
		return nil, fmt.Errorf("line-start pattern: rewriting %q: %w", pattern, err)
	}
	m.useFirst = !firstBytes(norm, &m.first)
	m.lit = literalPrefix(norm)
	if n, ok := maxLen(norm); ok {
		// Only paths that consume ≤ n bytes can match, so the engine decides at positions p ≤ n.
		// What it sees at p is the same in line[:n+4] as in line: the rune before p (decoded
		// backwards from the bytes before p), the rune at p (≤ 4 bytes, so within n+4), and
		// whether p is the end of the text (never, in either, when the line is cut: p ≤ n <
		// n+4 < len(line)). Those are all that runes, \b, \B, ^ and $ (also with (?m)) look at.
		// The engines also decode one rune ahead of a consumed one, but that only sets the
		// context of positions beyond n, where no path is alive.
		m.limit = n + utf8.UTFMax
	}
	return m, nil
}

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

// The rewrite rules. Each keeps, for every line, whether some match starts at byte 0; none keeps
// where matches end, which is why they apply to Match and not to MatchLen.

// alwaysEmpty reports whether re can match the empty string without passing any assertion, so in
// every context (\b or $ make an empty match depend on the text around it).
func alwaysEmpty(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpStar, syntax.OpQuest:
		return true
	case syntax.OpLiteral:
		return len(re.Rune) == 0
	case syntax.OpCapture, syntax.OpPlus:
		return alwaysEmpty(re.Sub[0])
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if !alwaysEmpty(sub) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			if alwaysEmpty(sub) {
				return true
			}
		}
	}
	return false
}

// trimTail returns a regexp that has a match starting at a given position of a given text exactly
// when re has one. It builds new nodes: Simplify shares subtrees.
//
//   - re always matches empty: then a match exists everywhere, so the empty regexp will do.
//   - A·E with E always matching empty: a match of A·E ending at k contains a match of A ending at
//     some j ≤ k (assertions in A see the same text); a match of A ending at j extends by E's empty
//     match at j, which passes no assertion. So A·E ~ A, and then A = B·X ~ B·trimTail(X) because
//     trimTail(X) matches from j exactly when X does.
//   - X+: its first iteration is a match of X, and a match of X is a match of X+. So X+ ~ X.
//   - A|B: a match of either, so each branch can be replaced by an equivalent one.
//   - (X): a capture only records positions.
//
// Elements with assertions, like `$`, `\b` or `(?:x$)+`, are kept unless an assertion-free empty
// path exists (`(?:x$)?` goes, as the rule for A·E shows).
func trimTail(re *syntax.Regexp) *syntax.Regexp {
	if alwaysEmpty(re) {
		return &syntax.Regexp{Op: syntax.OpEmptyMatch}
	}
	switch re.Op {
	case syntax.OpCapture, syntax.OpPlus:
		return trimTail(re.Sub[0])
	case syntax.OpConcat:
		n := len(re.Sub)
		for alwaysEmpty(re.Sub[n-1]) { // stops at n ≥ 1: re itself is not always empty
			n--
		}
		subs := append(append([]*syntax.Regexp(nil), re.Sub[:n-1]...), trimTail(re.Sub[n-1]))
		return &syntax.Regexp{Op: syntax.OpConcat, Flags: re.Flags, Sub: subs}
	case syntax.OpAlternate:
		return eachAlternative(re, trimTail)
	}
	return re
}

// eachAlternative returns the alternation re with f applied to every alternative.
func eachAlternative(re *syntax.Regexp, f func(*syntax.Regexp) *syntax.Regexp) *syntax.Regexp {
	subs := make([]*syntax.Regexp, len(re.Sub))
	for i, sub := range re.Sub {
		subs[i] = f(sub)
	}
	return &syntax.Regexp{Op: syntax.OpAlternate, Flags: re.Flags, Sub: subs}
}

// dropStart removes ^ and \A from first position: matching starts at byte 0 of the line, where
// both hold (with or without (?m)), and nothing before them can consume a byte. First position is
// the start of a concatenation, of each alternative and of a capture; not inside a repetition,
// whose later iterations start elsewhere.
func dropStart(re *syntax.Regexp) *syntax.Regexp {
	switch re.Op {
	case syntax.OpBeginText, syntax.OpBeginLine:
		return &syntax.Regexp{Op: syntax.OpEmptyMatch}
	case syntax.OpCapture:
		return dropStart(re.Sub[0])
	case syntax.OpConcat:
		first := dropStart(re.Sub[0])
		if first == re.Sub[0] {
			return re
		}
		// Leave no empty match behind, so that ^a|b can become the class [ab].
		subs := re.Sub[1:]
		if first.Op != syntax.OpEmptyMatch {
			subs = append([]*syntax.Regexp{first}, subs...)
		}
		switch len(subs) {
		case 0:
			return first
		case 1:
			return subs[0]
		}
		return &syntax.Regexp{Op: syntax.OpConcat, Flags: re.Flags, Sub: subs}
	case syntax.OpAlternate:
		return eachAlternative(re, dropStart)
	}
	return re
}

// flatten lists the elements of a concatenation, through nested concatenations and captures
// (which only record positions), leaving out empty matches.
func flatten(re *syntax.Regexp, out []*syntax.Regexp) []*syntax.Regexp {
	switch re.Op {
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			out = flatten(sub, out)
		}
	case syntax.OpCapture:
		out = flatten(re.Sub[0], out)
	case syntax.OpEmptyMatch:
	default:
		out = append(out, re)
	}
	return out
}

// plainLiteral returns the literal that re is, if bytes.HasPrefix can decide it: case-sensitive,
// without U+FFFD. The engine matches a rune r ≠ U+FFFD only against r's own UTF-8 encoding, and
// decoding from byte 0 meets the same rune boundaries; U+FFFD would also match any invalid byte.
func plainLiteral(re *syntax.Regexp) ([]byte, bool) {
	var lit []byte
	for _, sub := range flatten(re, nil) {
		p, all := caseSensitivePrefix(sub)
		if !all {
			return nil, false
		}
		lit = append(lit, p...)
	}
	return lit, true
}

// literalPrefix returns a literal every match of re must start with. Assertions consume nothing,
// so skipping them keeps the prefix a necessary condition.
func literalPrefix(re *syntax.Regexp) []byte {
	var lit []byte
	for _, sub := range flatten(re, nil) {
		switch sub.Op {
		case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
			syntax.OpWordBoundary, syntax.OpNoWordBoundary:
			continue
		}
		p, all := caseSensitivePrefix(sub)
		lit = append(lit, p...)
		if !all {
			break
		}
	}
	return lit
}

// caseSensitivePrefix returns the UTF-8 of the leading runes of a literal up to the first U+FFFD
// or rune with other cases under (?i), and whether that is all of re.
func caseSensitivePrefix(re *syntax.Regexp) ([]byte, bool) {
	if re.Op != syntax.OpLiteral {
		return nil, false
	}
	fold := re.Flags&syntax.FoldCase != 0
	var p []byte
	for _, r := range re.Rune {
		if r == utf8.RuneError || len(foldOrbit(r, fold)) > 1 {
			return p, false
		}
		p = utf8.AppendRune(p, r)
	}
	return p, true
}

// byteSeq recognises a concatenation that consumes exactly one byte per element, each from a set:
// literals and classes of ASCII runes only (with (?i), every case variant must be ASCII too: (?i)k
// also matches the Kelvin sign U+212A). A byte ≥ 0x80 decodes to a rune ≥ 0x80 or to U+FFFD, never
// to an ASCII rune, so such an element matches exactly the ASCII bytes of its set. The last element
// may also be a class that holds every rune ≥ 0x80 (such as . or [^\n]): what it consumes beyond
// the first byte does not matter at the end, and the first byte alone decides membership.
func byteSeq(re *syntax.Regexp) ([]byteSet, bool) {
	subs := flatten(re, nil)
	var seq []byteSet
	for i, sub := range subs {
		last := i == len(subs)-1
		switch sub.Op {
		case syntax.OpLiteral:
			for _, r := range sub.Rune {
				var s byteSet
				for _, f := range foldOrbit(r, sub.Flags&syntax.FoldCase != 0) {
					if f >= utf8.RuneSelf {
						return nil, false
					}
					s.add(byte(f))
				}
				seq = append(seq, s)
			}
		case syntax.OpCharClass:
			if !asciiClass(sub.Rune) && !(last && coversNonASCII(sub.Rune)) {
				return nil, false
			}
			var s byteSet
			addClass(sub.Rune, &s)
			seq = append(seq, s)
		case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
			if !last {
				return nil, false
			}
			var s byteSet
			firstBytes(sub, &s)
			seq = append(seq, s)
		default:
			return nil, false
		}
	}
	return seq, true
}

// asciiClass reports whether all runes of the class are ASCII.
func asciiClass(ranges []rune) bool {
	return len(ranges) == 0 || ranges[len(ranges)-1] < utf8.RuneSelf
}

// coversNonASCII reports whether the class holds every rune from 0x80 to unicode.MaxRune (and so
// U+FFFD). Ranges are sorted and do not touch.
func coversNonASCII(ranges []rune) bool {
	for i := 0; i < len(ranges); i += 2 {
		if ranges[i] <= utf8.RuneSelf && ranges[i+1] == unicode.MaxRune {
			return true
		}
	}
	return false
}

// firstBytes adds to s every byte a non-empty match of re can start with, and reports whether re
// can match the empty string in some context (then the first byte proves nothing). Case folding
// uses the same orbits as the regexp engine, so (?i)k adds the Kelvin sign's lead byte; U+FFFD adds
// every byte ≥ 0x80, since the engine reads each invalid byte as U+FFFD.
func firstBytes(re *syntax.Regexp, s *byteSet) bool {
	switch re.Op {
	case syntax.OpNoMatch:
		return false
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true
	case syntax.OpLiteral:
		if len(re.Rune) == 0 {
			return true
		}
		for _, f := range foldOrbit(re.Rune[0], re.Flags&syntax.FoldCase != 0) {
			addClass([]rune{f, f}, s)
		}
		return false
	case syntax.OpCharClass:
		addClass(re.Rune, s)
		return false
	case syntax.OpAnyCharNotNL:
		addClass([]rune{0, '\n' - 1, '\n' + 1, unicode.MaxRune}, s)
		return false
	case syntax.OpAnyChar:
		addClass([]rune{0, unicode.MaxRune}, s)
		return false
	case syntax.OpCapture, syntax.OpPlus:
		return firstBytes(re.Sub[0], s)
	case syntax.OpStar, syntax.OpQuest:
		firstBytes(re.Sub[0], s)
		return true
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if !firstBytes(sub, s) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		empty := false
		for _, sub := range re.Sub {
			if firstBytes(sub, s) {
				empty = true
			}
		}
		return empty
	}
	// Anything else (counted repetitions do not survive Simplify): claim nothing.
	return true
}

// maxLen returns the most bytes a match of re can consume, if that is bounded. A rune consumes
// its UTF-8 length; U+FFFD also matches a single invalid byte, which is shorter.
func maxLen(re *syntax.Regexp) (int, bool) {
	switch re.Op {
	case syntax.OpNoMatch, syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine,
		syntax.OpBeginText, syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return 0, true
	case syntax.OpLiteral:
		n := 0
		for _, r := range re.Rune {
			w := 0
			for _, f := range foldOrbit(r, re.Flags&syntax.FoldCase != 0) {
				w = max(w, runeWidth(f))
			}
			n += w
		}
		return n, true
	case syntax.OpCharClass:
		if len(re.Rune) == 0 {
			return 0, true
		}
		return runeWidth(re.Rune[len(re.Rune)-1]), true
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return utf8.UTFMax, true
	case syntax.OpCapture, syntax.OpQuest:
		return maxLen(re.Sub[0])
	case syntax.OpConcat, syntax.OpAlternate:
		n := 0
		for _, sub := range re.Sub {
			m, ok := maxLen(sub)
			if !ok {
				return 0, false
			}
			if re.Op == syntax.OpConcat {
				n += m
			} else {
				n = max(n, m)
			}
		}
		return n, true
	}
	return 0, false // *, + and anything unknown
}

// runeWidth is the UTF-8 length of r, by range so that surrogates (in classes) count too.
func runeWidth(r rune) int {
	switch {
	case r < 0x80:
		return 1
	case r < 0x800:
		return 2
	case r < 0x10000:
		return 3
	}
	return 4
}

// foldOrbit returns r and, with fold, every rune the engine treats as equal to it under (?i).
func foldOrbit(r rune, fold bool) []rune {
	orbit := []rune{r}
	if fold {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			orbit = append(orbit, f)
		}
	}
	return orbit
}

// byteSet is a set of bytes, one bit each.
type byteSet [4]uint64

func (s *byteSet) has(b byte) bool { return s[b>>6]&(1<<(b&63)) != 0 }

func (s *byteSet) add(b byte) { s[b>>6] |= 1 << (b & 63) }

// addClass adds the first bytes of the UTF-8 encodings of the runes in ranges (lo, hi pairs).
// Within each encoding length the lead byte grows with the rune, so a range adds a run of bytes.
func addClass(ranges []rune, s *byteSet) {
	for i := 0; i < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		for _, band := range [...]struct {
			lo, hi rune
			lead   func(rune) int
		}{
			{0, 0x7f, func(r rune) int { return int(r) }},
			{0x80, 0x7ff, func(r rune) int { return 0xc0 | int(r>>6) }},
			{0x800, 0xffff, func(r rune) int { return 0xe0 | int(r>>12) }},
			{0x10000, unicode.MaxRune, func(r rune) int { return 0xf0 | int(r>>18) }},
		} {
			a, b := max(lo, band.lo), min(hi, band.hi)
			for c := band.lead(a); a <= b && c <= band.lead(b); c++ {
				s.add(byte(c))
			}
		}
		if lo <= utf8.RuneError && utf8.RuneError <= hi {
			for c := 0x80; c <= 0xff; c++ {
				s.add(byte(c))
			}
		}
	}
}
