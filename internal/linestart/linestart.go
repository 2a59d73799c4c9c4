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
	"encoding/binary"
	"fmt"
	"regexp"
	"regexp/syntax"
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
