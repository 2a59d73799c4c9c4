package linestart

import "regexp/syntax"

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
