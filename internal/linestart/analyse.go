package linestart

import (
	"regexp/syntax"
	"unicode"
	"unicode/utf8"
)

// The analyses of the rewritten tree that choose Match's fast path. Each answers for every line
// (any bytes, invalid UTF-8 included) as the regexp engine would, since Match trusts it alone.

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
			if !asciiClass(sub.Rune) && (!last || !coversNonASCII(sub.Rune)) {
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
