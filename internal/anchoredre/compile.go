package anchoredre

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"unicode"
	"unicode/utf8"
)

// Compile returns the matcher of re, a regexp as regexp.Compile makes them (leftmost-first,
// not CompilePOSIX or Longest), when its pattern is covered; otherwise ok is false and re is
// the one to use.
//
// Why one scan finds regexp's match: regexp returns the first successful path in the order of
// preference (greedy: one more iteration before stopping; alternatives left to right). At each
// choice the scan takes the preferred side when the next rune can begin it, which is right
// when either the other side cannot succeed (it would have to begin with that rune too, or
// accept right here), or the other side's success implies the preferred one's: the
// continuation is suffix-closed (accepting at p, it accepts at every later position read on
// from p) and the preferred side, once begun, always completes. Alternatives must begin with
// different runes, so that only one of them can succeed.
func Compile(re *regexp.Regexp) (m *Matcher, ok bool) {
	t, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return nil, false
	}
	subs := []*syntax.Regexp{t}
	if t.Op == syntax.OpConcat {
		subs = t.Sub
	}
	begin := 0
	for begin < len(subs) && subs[begin].Op == syntax.OpBeginText {
		begin++
	}
	if begin == 0 {
		return nil, false
	}
	top := &node{kind: kSeq}
	for _, s := range subs[begin:] {
		n, ok := convert(s)
		if !ok {
			return nil, false
		}
		top.sub = append(top.sub, n)
	}
	var c compiler
	// The pattern's end accepts anywhere: it is empty and suffix-closed.
	if !c.emit(top, follow{empty: true, sc: true}, true) || len(c.prog) > maxProg {
		return nil, false
	}
	return &Matcher{prog: c.prog, ncap: 2 * (re.NumSubexp() + 1)}, true
}

// maxProg bounds the program, which repeats of groups copy.
const maxProg = 5000

type kind uint8

const (
	kEmpty kind = iota
	kLit        // lit, runes that are their own UTF-8 (not U+FFFD, not surrogates)
	kRun        // a greedy run of set's runes, min to max (-1: unbounded)
	kCap        // sub[0] as capture group capIdx
	kSeq        // sub in turn
	kAlt        // one of sub, the first that matches
	kRep        // sub[0] min to max times, greedy; not a single rune (those are kRun)
	kEnd        // the end of the text
)

type node struct {
	kind     kind
	lit      string
	set      runeSet
	min, max int
	capIdx   int
	sub      []*node
}

// convert maps the parsed pattern to nodes; false for what is not covered.
func convert(re *syntax.Regexp) (*node, bool) {
	switch re.Op {
	case syntax.OpEmptyMatch:
		return &node{kind: kEmpty}, true
	case syntax.OpLiteral:
		return literal(re.Rune, re.Flags&syntax.FoldCase != 0)
	case syntax.OpCharClass:
		return runOf(normalize(slices.Clone(re.Rune))), true
	case syntax.OpAnyCharNotNL:
		return runOf(notNL), true
	case syntax.OpAnyChar:
		return runOf(anyRune), true
	case syntax.OpEndText:
		return &node{kind: kEnd}, true
	case syntax.OpCapture:
		sub, ok := convert(re.Sub[0])
		return &node{kind: kCap, capIdx: re.Cap, sub: []*node{sub}}, ok
	case syntax.OpConcat, syntax.OpAlternate:
		n := &node{kind: kSeq}
		if re.Op == syntax.OpAlternate {
			n.kind = kAlt
		}
		for _, s := range re.Sub {
			sn, ok := convert(s)
			if !ok {
				return nil, false
			}
			n.sub = append(n.sub, sn)
		}
		return n, true
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		if re.Flags&syntax.NonGreedy != 0 {
			return nil, false
		}
		sub, ok := convert(re.Sub[0])
		if !ok {
			return nil, false
		}
		switch re.Op {
		case syntax.OpStar:
			return repeat(sub, 0, -1), true
		case syntax.OpPlus:
			return repeat(sub, 1, -1), true
		case syntax.OpQuest:
			return repeat(sub, 0, 1), true
		}
		return repeat(sub, re.Min, re.Max), true
	}
	return nil, false
}

// literal is a literal's runes: byte strings, and single-rune runs for what does not compare
// as bytes (a rune folded with others, U+FFFD, which invalid UTF-8 also reads as). Not a
// surrogate: no text reads as one, but regexp's literal prefix, which it compares as bytes,
// takes it for U+FFFD.
func literal(runes []rune, fold bool) (*node, bool) {
	seq := &node{kind: kSeq}
	var lit []byte
	flush := func() {
		if len(lit) > 0 {
			seq.sub = append(seq.sub, &node{kind: kLit, lit: string(lit)})
			lit = nil
		}
	}
	for _, r := range runes {
		if !utf8.ValidRune(r) {
			return nil, false
		}
		set := runeSet{r, r}
		if fold {
			for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
				set = append(set, f, f)
			}
		}
		if len(set) == 2 && r != utf8.RuneError {
			lit = utf8.AppendRune(lit, r)
			continue
		}
		flush()
		seq.sub = append(seq.sub, runOf(normalize(set)))
	}
	flush()
	if len(seq.sub) == 1 {
		return seq.sub[0], true
	}
	return seq, true
}

func runOf(set runeSet) *node { return &node{kind: kRun, set: set, min: 1, max: 1} }

// repeat is sub{lo,hi}: a run when sub is one rune, nothing when hi is 0.
func repeat(sub *node, lo, hi int) *node {
	if hi == 0 {
		return &node{kind: kEmpty}
	}
	switch {
	case sub.kind == kRun && sub.min == 1 && sub.max == 1:
		return &node{kind: kRun, set: sub.set, min: lo, max: hi}
	case sub.kind == kLit && utf8.RuneCountInString(sub.lit) == 1:
		r, _ := utf8.DecodeRuneInString(sub.lit)
		return &node{kind: kRun, set: runeSet{r, r}, min: lo, max: hi}
	}
	return &node{kind: kRep, sub: []*node{sub}, min: lo, max: hi}
}

// follow is what is known of the rest of the pattern after a point.
type follow struct {
	first runeSet // the runes it can begin with
	empty bool    // it can accept without reading a rune, before the end of the text
	sc    bool    // suffix-closed: accepting at p, it accepts at every position read on from p
}

// followOf is what is known of n followed by a rest f.
func followOf(n *node, f follow) follow {
	switch n.kind {
	case kEmpty:
		return f
	case kLit:
		r, _ := utf8.DecodeRuneInString(n.lit)
		return follow{first: runeSet{r, r}}
	case kRun:
		if n.min == 0 {
			// X{0,m} R accepts at each later position of its run, and after it where R does.
			return follow{first: n.set.union(f.first), empty: f.empty, sc: f.sc}
		}
		return follow{first: n.set}
	case kCap:
		return followOf(n.sub[0], f)
	case kSeq:
		for i := len(n.sub) - 1; i >= 0; i-- {
			f = followOf(n.sub[i], f)
		}
		return f
	case kAlt:
		var a follow
		for _, s := range n.sub {
			sf := followOf(s, f)
			a.first, a.empty = a.first.union(sf.first), a.empty || sf.empty
		}
		return a
	case kRep:
		first := followOf(n.sub[0], follow{}).first
		if n.min == 0 {
			// (X{1,k}){0,m} is X{0,km}: suffix-closed as a run is.
			return follow{first: first.union(f.first), empty: f.empty, sc: f.sc && runLike(n.sub[0])}
		}
		return follow{first: first}
	case kEnd:
		return follow{sc: true} // accepting only at the end is suffix-closed
	}
	panic("anchoredre: unknown node kind")
}

func nullable(n *node) bool { return followOf(n, follow{empty: true}).empty }

// runLike reports whether n's language is X{1,k}, k ≥ 1, for a set of runes X.
func runLike(n *node) bool {
	switch n.kind {
	case kRun:
		return n.min == 1
	case kLit:
		return utf8.RuneCountInString(n.lit) == 1
	case kCap:
		return runLike(n.sub[0])
	}
	return false
}

// completes reports whether n, once it has read its first rune, can always complete.
func completes(n *node) bool {
	switch n.kind {
	case kLit:
		return utf8.RuneCountInString(n.lit) == 1
	case kRun:
		return n.min <= 1
	case kCap:
		return completes(n.sub[0])
	case kSeq:
		if len(n.sub) == 0 || !completes(n.sub[0]) || nullable(n.sub[0]) {
			return false
		}
		for _, s := range n.sub[1:] {
			if !nullable(s) {
				return false
			}
		}
		return true
	case kAlt:
		for _, s := range n.sub {
			if !completes(s) {
				return false
			}
		}
		return true
	case kRep:
		return n.min <= 1 && completes(n.sub[0])
	}
	return false
}

// choiceOK reports whether a choice between going on with a part that begins with first (and
// completes once begun, or not) and stopping for the rest f is decided by the next rune.
func choiceOK(first runeSet, completes bool, f follow) bool {
	return f.sc && completes || !f.empty && first.disjoint(f.first)
}

type compiler struct{ prog []inst }

func (c *compiler) add(in inst) int {
	c.prog = append(c.prog, in)
	return len(c.prog) - 1
}

// emit appends n's program, for a rest f; tail is that nothing follows n in the pattern.
func (c *compiler) emit(n *node, f follow, tail bool) bool {
	if len(c.prog) > maxProg {
		return false
	}
	switch n.kind {
	case kEmpty:
	case kLit:
		c.add(inst{op: opLit, lit: n.lit})
	case kRun:
		if n.max != n.min && !choiceOK(n.set, true, f) {
			return false
		}
		c.add(runInst(n))
	case kCap:
		c.add(inst{op: opSave, arg: 2 * n.capIdx})
		if !c.emit(n.sub[0], f, tail) {
			return false
		}
		c.add(inst{op: opSave, arg: 2*n.capIdx + 1})
	case kSeq:
		rests := make([]follow, len(n.sub))
		for i := len(n.sub) - 1; i >= 0; i-- {
			rests[i] = f
			f = followOf(n.sub[i], f)
		}
		for i, s := range n.sub {
			if !c.emit(s, rests[i], tail && i == len(n.sub)-1) {
				return false
			}
		}
	case kEnd:
		if !tail {
			return false
		}
		c.add(inst{op: opEnd})
	case kAlt:
		return c.emitAlt(n, f)
	case kRep:
		return c.emitRep(n, f)
	}
	return true
}

// runInst is a run's instruction; .* and .+ have faster ones.
func runInst(n *node) inst {
	if n.max < 0 && n.min <= 1 {
		switch {
		case slices.Equal(n.set, anyRune):
			return inst{op: opRest, min: n.min}
		case slices.Equal(n.set, notNL):
			return inst{op: opLine, min: n.min}
		}
	}
	return inst{op: opRun, cls: newClass(n.set), min: n.min, max: n.max}
}

// emitAlt: branches that cannot be empty and begin with different runes, so that the next
// rune picks the only one that can match.
func (c *compiler) emitAlt(n *node, f follow) bool {
	t := &altTable{}
	for i := range t.ascii {
		t.ascii[i] = -1
	}
	c.add(inst{op: opAlt, alt: t})
	var seen runeSet
	var jumps []int
	for _, b := range n.sub {
		first := followOf(b, follow{}).first
		if nullable(b) || !first.disjoint(seen) {
			return false
		}
		seen = seen.union(first)
		start := int32(len(c.prog))
		cls := newClass(first)
		for r, in := range cls.ascii[:utf8.RuneSelf] {
			if in {
				t.ascii[r] = start
			}
		}
		t.sets, t.targets = append(t.sets, cls), append(t.targets, start)
		if !c.emit(b, f, false) {
			return false
		}
		jumps = append(jumps, c.add(inst{op: opJump}))
	}
	for _, j := range jumps {
		c.prog[j].arg = len(c.prog)
	}
	return true
}

// emitRep copies the body min times, then each optional iteration behind a split on the
// body's first runes (or one loop when unbounded), as regexp's Simplify expands repeats.
func (c *compiler) emitRep(n *node, f follow) bool {
	body := n.sub[0]
	if nullable(body) {
		return false
	}
	first := followOf(body, follow{}).first
	if (n.max < 0 || n.max > n.min) && !choiceOK(first, completes(body), f) {
		return false
	}
	// After an iteration: another one (or the rest f when it was the last). A conservative
	// rest for all of them: a mandatory one still to come is neither empty nor suffix-closed.
	in := f
	if n.max != 1 {
		in = follow{first: first.union(f.first), empty: f.empty, sc: f.sc && n.min <= 1 && runLike(body)}
	}
	for range n.min {
		if !c.emit(body, in, false) {
			return false
		}
	}
	cls := newClass(first)
	if n.max < 0 {
		split := c.add(inst{op: opSplit, cls: cls})
		if !c.emit(body, in, false) {
			return false
		}
		c.add(inst{op: opJump, arg: split})
		c.prog[split].arg = len(c.prog)
		return true
	}
	var splits []int
	for range n.max - n.min {
		splits = append(splits, c.add(inst{op: opSplit, cls: cls}))
		if !c.emit(body, in, false) {
			return false
		}
	}
	for _, s := range splits {
		c.prog[s].arg = len(c.prog)
	}
	return true
}
