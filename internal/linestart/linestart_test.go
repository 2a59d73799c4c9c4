package linestart

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"regexp/syntax"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// reference is the definition of a line-start match.
func reference(t testing.TB, pattern string) *regexp.Regexp {
	t.Helper()
	re, err := regexp.Compile(`\A(?:` + pattern + `)`)
	if err != nil {
		// An unterminated \Q quotes to the end of the pattern, the closing parenthesis included.
		re, err = regexp.Compile(`\A(?:` + pattern + `\E)`)
	}
	require.NoError(t, err)
	return re
}

// checkAgainstReference compares Match and MatchLen with the reference on line.
func checkAgainstReference(t testing.TB, m *Matcher, ref *regexp.Regexp, line []byte) {
	t.Helper()
	want := ref.Match(line)
	if got := m.Match(line); got != want {
		t.Fatalf("pattern %q (kind %d) on %q: Match = %v, reference %v", m.pattern, m.kind, line, got, want)
	}
	wantLen := -1
	if loc := ref.FindIndex(line); loc != nil {
		wantLen = loc[1]
	}
	if got := m.MatchLen(line); got != wantLen {
		t.Fatalf("pattern %q on %q: MatchLen = %d, reference %d", m.pattern, line, got, wantLen)
	}
}

func TestEdgeCases(t *testing.T) {
	long := strings.Repeat("x", 5000)
	tests := []struct {
		pattern string
		kind    kind
		match   []string
		noMatch []string
	}{
		// Only the b branch has the .*: a textual "strip the trailing .*" would leave `a|b` too, but
		// one that anchors with a textual ^ would anchor only a.
		{`a|b.*`, kindBytes, []string{"a", "b", "bxyz", "a.*"}, []string{"", "xb", "xa", "c"}},
		// \Q…\E quotes the .*: it is part of the literal, not a tail to strip.
		{`\Qcnt.*`, kindLiteral, []string{"cnt.*", "cnt.*x"}, []string{"cnt", "cnt:1", "cnt.x"}},
		// The tail is \.* (dots), which can be empty: "a" alone matches.
		{`a\.*`, kindLiteral, []string{"a", "a.", "ab"}, []string{"", "b.", ".a"}},
		// An escaped $ is a literal, not the end of the line.
		{`price\$`, kindLiteral, []string{"price$", "price$ 3"}, []string{"price", "price 3$"}},
		// Digits up to the end of the line: the $ must stay, and so must the +.
		{`\d+$`, kindRegexp, []string{"1", "123"}, []string{"", "12a", "a1", "1\n"}},
		// Needs the whole line: ends with }.
		{`.*\}$`, kindRegexp, []string{"}", "{a}", long + "}"}, []string{"", "{a} ", "a}\nb}", long}},
		// (?i)k also matches the Kelvin sign U+212A, whose UTF-8 starts with 0xE2.
		{`(?i)k`, kindRegexp, []string{"k", "K", "\u212a", "\u212ax"}, []string{"", "x", "\xe2\x84"}},
		// (?i)s also matches ſ (U+017F).
		{`(?i)s:`, kindRegexp, []string{"s:", "S:", "ſ:"}, []string{"x:", "\xc5:"}},
		// The engine reads an invalid byte as U+FFFD, so the literal matches it.
		{"\uFFFD", kindRegexp, []string{"\uFFFD", "\xff", "\x80x", "\xe2\x84"}, []string{"", "a"}},
		{`x\x{FFFD}y`, kindRegexp, []string{"x\xffy", "x\uFFFDy"}, []string{"xy", "x\xff\xffy"}},
		// A tail + keeps one iteration: cnt followed by at least one character that is not \n.
		{`cnt.+`, kindBytes, []string{"cnt:", "cnt:1234", "cnt\u00e9"}, []string{"cnt", "cnt\n", "cn"}},
		// Only the last .* goes: a.*b needs a b somewhere after the a.
		{`a.*b.*`, kindRegexp, []string{"ab", "a123b456", "a" + long + "b"}, []string{"a", "a" + long, "ba", "a\nb"}},
		// A textual ^ anchors only the first branch; we anchor both.
		{`^a|b`, kindBytes, []string{"a", "b", "bc"}, []string{"", "ca", "cb"}},
		// Alternations in a row with an empty tail: any of ac, abc, abcd, abbcd…
		{`(a|ab)(c|bcd)(d*)`, kindRegexp, []string{"ac", "abcd", "abc", "acx"}, []string{"a", "ab", "abd", "bc"}},
		// \b at the end depends on the byte after foo.
		{`\bfoo\b`, kindRegexp, []string{"foo", "foo bar", "foo-", "foo\u00e9"}, []string{"food", "foo_", "foo1", " foo"}},
		{`foo\B`, kindRegexp, []string{"food", "foo1"}, []string{"foo", "foo bar"}},
		// Patterns that can match empty match every line.
		{`x*`, kindAll, []string{"", "x", "y", long}, nil},
		{``, kindAll, []string{"", "y"}, nil},
		{`^`, kindAll, []string{"", "y"}, nil},
		{`[^\n]*`, kindAll, []string{"", "\n", "a\nb"}, nil},
		{`(?:x$)?`, kindAll, []string{"", "y"}, nil},
		// Conditional empty matches do not match every line.
		{`$`, kindRegexp, []string{""}, []string{"a", "\n"}},
		{`(?m)$`, kindRegexp, []string{"", "\n", "\nabc"}, []string{"a"}},
		{`\b`, kindRegexp, []string{"a", "_"}, []string{"", " a", "\xff"}},
		// (?s). matches any first character, newline included.
		{`(?s).`, kindBytes, []string{"a", "\n", "\xff", "\u212a"}, []string{""}},
		{`.`, kindBytes, []string{"a", "\xff"}, []string{"", "\n"}},
		// The line-start patterns of the benchmarks.
		{`cnt.*`, kindLiteral, []string{"cnt", "cnt:1,thread:2"}, []string{"", "cn", "    at com.example", "xcnt"}},
		{`^cnt`, kindLiteral, []string{"cnt", "cnt:1"}, []string{"", "Cnt", " cnt"}},
		// Literals are compared 8 bytes at a time when the line is that long.
		{`abcdefgh`, kindLiteral, []string{"abcdefgh", "abcdefghi"}, []string{"abcdefg", "abcdefgX", "Xbcdefghij"}},
		{`com\.example\.Book`, kindLiteral, []string{"com.example.Book", "com.example.Book.get"},
			[]string{"com.example.Boo", "com.example.Bool", "com.exampleXBook", "com.exa"}},
		{`é€`, kindLiteral, []string{"é€", "é€12345678"}, []string{"é", "é\xe2\x82", "e€12345678"}},
		{`\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}.*`, kindBytes,
			[]string{"2024-01-02T03:04:05", "2024-01-02 03:04:05.123Z INFO x"},
			[]string{"    at com.example", "2024-01-02", "2024-01-02X03:04:05", "٢024-01-02T03:04:05"}},
		// x{2,} keeps two iterations, x{2,5} too.
		{`ab{2,}`, kindLiteral, []string{"abb", "abbbb"}, []string{"ab", "a"}},
		{`ab{2,5}c?`, kindLiteral, []string{"abb", "abbbbbb"}, []string{"ab"}},
		// An anchor in a repetition is not in first position.
		{`(?:^a)+`, kindLiteral, []string{"a", "aa"}, []string{"b"}},
		{`(?:a^)*b`, kindRegexp, []string{"b"}, []string{"ab", "a"}},
		// Captures and case folding without other cases.
		{`(c)(n)t`, kindLiteral, []string{"cnt"}, []string{"cn"}},
		{`(?i)1-2`, kindLiteral, []string{"1-2"}, []string{"1-3"}},
		{`(?i:[a-c])x`, kindBytes, []string{"Ax", "bx"}, []string{"dx", "aX"}},
		{`[^a]`, kindBytes, []string{"b", "\xff", "\u212a", "\n"}, []string{"a", ""}},
		{`\pL+:`, kindRegexp, []string{"abc:", "é:"}, []string{"1:", ":"}},
		{`[^\x00-\x{10FFFF}]`, kindBytes, nil, []string{"", "a", "\xff"}},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			m, err := Compile(tt.pattern)
			require.NoError(t, err)
			assert.Equal(t, tt.pattern, m.String())
			assert.Equal(t, tt.kind, m.kind, "kind")
			ref := reference(t, tt.pattern)
			for _, line := range tt.match {
				assert.True(t, m.Match([]byte(line)), "should match %q", line)
				checkAgainstReference(t, m, ref, []byte(line))
			}
			for _, line := range tt.noMatch {
				assert.False(t, m.Match([]byte(line)), "should not match %q", line)
				checkAgainstReference(t, m, ref, []byte(line))
			}
		})
	}
}

func TestCompileError(t *testing.T) {
	for _, p := range []string{`a(`, `a)|(b`, `*`, `\8`, `x{1001}`} {
		_, err := Compile(p)
		var serr *syntax.Error
		require.ErrorAs(t, err, &serr, "pattern %q", p)
		assert.Contains(t, err.Error(), "line-start pattern")
	}
}

func TestMatchLen(t *testing.T) {
	m, err := Compile(`\d+-`)
	require.NoError(t, err)
	assert.Equal(t, 4, m.MatchLen([]byte("123-456-")))
	assert.Equal(t, -1, m.MatchLen([]byte("x123-")))
	// Leftmost-first, as the regexp package: the first alternative that matches wins.
	m, err = Compile(`a|ab`)
	require.NoError(t, err)
	assert.Equal(t, 1, m.MatchLen([]byte("abc")))
}

// patternGen builds random patterns from a small grammar that exercises the rewrite rules.
type patternGen struct{ r *rand.Rand }

var (
	genAtoms = []string{
		"a", "b", "c", "k", "K", "s", "ſ", `\x{212A}`, "é", `\x{FFFD}`, "\uFFFD", "1", "-", " ", `\.`, `\$`,
		`\}`, `\n`, "cnt", "ab",
		`[a-c]`, `[^a]`, `\d`, `\w`, `\s`, `\S`, `[k]`, `[^\n]`, `[\x{80}-\x{10FFFF}]`, `[ T]`, `[α-ω]`,
		`.`, `.`, `^`, `$`, `\b`, `\B`, `\A`, `\z`, `(?i:k)`, `(?s:.)`, `(?m:^)`, `(?m:$)`,
	}
	genQuants = []string{"*", "+", "?", "*?", "+?", "??", "{2}", "{0,2}", "{1,3}", "{2,}", "{0}", "{1}"}
)

func (g patternGen) pattern() string {
	var b strings.Builder
	switch g.r.IntN(6) {
	case 0:
		b.WriteString("^")
	case 1:
		b.WriteString("(?i)")
	case 2:
		b.WriteString("(?s)")
	case 3:
		b.WriteString("(?m)")
	}
	g.alt(&b, 0)
	return b.String()
}

func (g patternGen) alt(b *strings.Builder, depth int) {
	g.concat(b, depth)
	for g.r.IntN(4) == 0 {
		b.WriteString("|")
		g.concat(b, depth)
	}
}

func (g patternGen) concat(b *strings.Builder, depth int) {
	for n := g.r.IntN(4); n >= 0; n-- {
		if depth < 2 && g.r.IntN(4) == 0 {
			b.WriteString([]string{"(", "(?:", "(?i:", "(?P<n>"}[g.r.IntN(4)])
			g.alt(b, depth+1)
			b.WriteString(")")
		} else {
			b.WriteString(genAtoms[g.r.IntN(len(genAtoms))])
		}
		if g.r.IntN(3) == 0 {
			b.WriteString(genQuants[g.r.IntN(len(genQuants))])
		}
	}
}

var genPieces = []string{
	"a", "b", "c", "k", "K", "s", "S", "ſ", "\u212a", "é", "\xff", "\x80", "\xe2\x84", "\xef\xbf\xbd", "1", "9",
	"-", ":", " ", "\n", "}", "$", ".", "cnt", "ab", "_", "T", "λ", "Λ",
}

func (g patternGen) line() []byte {
	var b []byte
	n := g.r.IntN(10)
	if g.r.IntN(20) == 0 {
		n = 100 + g.r.IntN(1000)
	}
	for range n {
		b = append(b, genPieces[g.r.IntN(len(genPieces))]...)
	}
	return b
}

func TestMatchEquivalence(t *testing.T) {
	g := patternGen{rand.New(rand.NewPCG(1, 2))}
	// Compiling dominates (String and Parse fold classes under (?i)): many lines per pattern.
	patterns, cases := 600, 0
	if testing.Short() {
		patterns = 60
	}
	for range patterns {
		p := g.pattern()
		m, err := Compile(p)
		if err != nil {
			// Only patterns the regexp package rejects may fail, e.g. x** or a repeated \A{2}.
			_, rerr := regexp.Compile(p)
			require.Error(t, rerr, "pattern %q: %v", p, err)
			continue
		}
		ref := reference(t, p)
		for range 100 {
			line := g.line()
			checkAgainstReference(t, m, ref, line)
			cases++
		}
	}
	t.Logf("%d cases", cases)
}

func FuzzMatchEquivalence(f *testing.F) {
	for _, seed := range []struct{ pattern, line string }{
		{`cnt.*`, "cnt:1,thread:2"},
		{`a|b.*`, "bxx"},
		{`\Qcnt.*`, "cnt.*"},
		{`a\.*`, "a.."},
		{`price\$`, "price$"},
		{`\d+$`, "12"},
		{`.*\}$`, "{}"},
		{`(?i)k`, "\u212a"},
		{"\uFFFD", "\xff"},
		{`cnt.+`, "cnt\n"},
		{`a.*b.*`, "axb"},
		{`^a|b`, "b"},
		{`(a|ab)(c|bcd)(d*)`, "abcd"},
		{`\bfoo\b`, "foo\u00e9"},
		{`x*`, ""},
		{``, "x"},
		{`(?s).`, "\n"},
		{`[^\n]*`, "\n"},
		{`\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}.*`, "2024-01-02T03:04:05Z"},
	} {
		f.Add(seed.pattern, []byte(seed.line))
	}
	f.Fuzz(func(t *testing.T, pattern string, line []byte) {
		m, err := Compile(pattern)
		if err != nil {
			t.Skip()
		}
		// Nested counted repetitions make programs of millions of instructions that take the
		// regexp package seconds per line: they test nothing more, only slow the fuzzer down.
		if tree, _ := syntax.Parse(pattern, syntax.Perl); len(tree.Simplify().String()) > 4096 {
			t.Skip()
		}
		checkAgainstReference(t, m, reference(t, pattern), line)
	})
}

func ExampleMatcher_Match() {
	m, _ := Compile(`\d{4}-\d{2}-\d{2}`)
	for _, line := range []string{"2024-05-06 12:00:00 started", "    at com.example.Main.run(Main.java:3)"} {
		fmt.Println(m.Match([]byte(line)))
	}
	// Output:
	// true
	// false
}
