package anchoredre

import (
	"regexp"
	"strings"
	"testing"
)

// generate makes a pattern of code: mostly anchored sequences of the covered constructs,
// sometimes one that is not, so that Compile's rules, where bugs would hide, decide.
func generate(code []byte) string {
	g := &patternGen{code: code}
	var b strings.Builder
	b.WriteString(g.pick("^", "^", "^", "^", `\A`, "(?i)^", "(?s)^", "", "(?m)^", "(?U)^"))
	g.seq(&b, 0)
	b.WriteString(g.pick("", "", "$", "$", `\z`, "$\n"))
	return b.String()
}

type patternGen struct {
	code []byte
	i    int
}

// pick is one of choices, the first once the code is used up.
func (g *patternGen) pick(choices ...string) string {
	return choices[g.n(len(choices))]
}

func (g *patternGen) n(k int) int {
	if g.i >= len(g.code) {
		return 0
	}
	g.i++
	return int(g.code[g.i-1]) % k
}

func (g *patternGen) seq(b *strings.Builder, depth int) {
	for range 1 + g.n(4) {
		g.item(b, depth)
	}
}

func (g *patternGen) item(b *strings.Builder, depth int) {
	switch k := g.n(10); {
	case k < 4 || depth >= 3:
		b.WriteString(g.pick("a", "b", "c", "x", " ", "-", "é", `\n`, `\x{FFFD}`, "K", "ab", `\[`, "$"))
	case k < 7:
		b.WriteString(g.pick(`[ab]`, `[^a]`, `[^ ]`, `\S`, `\s`, `\d`, `\w`, ".", "(?s:.)", "[a-c]", "[é-ü]", `[^\n]`, `\pL`, `[\x{D800}b]`, `[^\]]`, `[K]`))
	default:
		b.WriteString(g.pick("(", "(?:", "(?P<n>", "(?i:"))
		g.seq(b, depth+1)
		for range g.n(3) - 1 {
			b.WriteString("|")
			g.seq(b, depth+1)
		}
		b.WriteString(")")
	}
	b.WriteString(g.pick("", "", "", "*", "+", "?", "{2}", "{1,3}", "{0,2}", "{2,}", "*?", "{0}", "??"))
}

// FuzzSubmatchIndex compares the matcher with regexp for the pattern (when Compile takes it)
// and for the pattern generate makes of its bytes, on the input and on the input spelt in the
// alphabet (which the patterns match more often), and on their prefixes.
func FuzzSubmatchIndex(f *testing.F) {
	for i, p := range patterns {
		f.Add(p.expr, inputs[i%len(inputs)])
	}
	f.Add("\x00\x07\x01\x08\x02", "ab")
	f.Fuzz(func(t *testing.T, expr, input string) {
		if len(input) > 64 {
			return
		}
		spelt := make([]string, len(input))
		for i := range input {
			spelt[i] = alphabet[int(input[i])%len(alphabet)]
		}
		texts := []string{input, strings.Join(spelt, "")}
		for _, e := range []string{expr, generate([]byte(expr))} {
			re, err := regexp.Compile(e)
			if err != nil {
				continue
			}
			m, ok := Compile(re)
			if !ok {
				continue
			}
			for _, s := range texts {
				for end := range len(s) + 1 {
					same(t, re, m, s[:end])
				}
			}
		}
	})
}
