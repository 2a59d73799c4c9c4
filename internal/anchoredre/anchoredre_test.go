package anchoredre

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Patterns, whether Compile covers them, and why not when it does not.
var patterns = []struct {
	expr string
	ok   bool
}{
	// regex_parser's usual ones.
	{`^(?P<time>\S+ \S+) (?P<sev>[A-Z]+) +\[(?P<thread>[^\]]+)\] (?P<logger>\S+) - (?P<msg>.*)$`, true},
	{`^(?P<ip>[^ ]*) (?P<user>[^ ]*) \[(?P<ts>[^\]]*)\] "(?P<method>\S+) (?P<path>[^"]*)" (?P<code>\d{3}) (?P<size>\d+|-)$`, true},
	{`^(?P<time>[^ ]+) (?P<stream>stdout|stderr) (?P<logtag>[^ ]*) ?(?P<log>.*)$`, true},
	{`^(?P<a>a+)?(?P<b>b+)?(?P<a>c+)?(?P<rest>.*)$`, true},
	{`^(?P<word>[a-z]+)$`, true},
	{`^\[(?P<level>\w+)\]\s+(?P<msg>.*)`, true},
	{`\A(?P<x>\d+)`, true},
	{`^(?P<x>\d+)\z`, true},
	{`^(?:ab)?c`, true},
	{`^(?:ab)*$`, true},
	{`^(a)*`, true},
	{`^(?:(a)|b)+$`, true},
	{`^(?:(a)|(b))*c`, true},
	{`^(?i)hello K`, true},
	{`^\x{FFFD}+x`, true},
	{`^[é-ü]+ ?(?P<r>.*)`, true},
	{`^(?s).*`, true},
	{`^.+\n(.*)$`, true},
	{`^a{2,4}b{3}c{2,}`, true},
	{`^(?:ab){2,3}c`, true},
	{`^$`, true},
	{`^`, true},
	{`^(\s*)(.*)$`, true},
	{`^\s*(?:#.*)?$`, true},
	{`^(\d+)-(\d+)?`, true},
	{`^(?:a$)`, true},
	{`^(x$)`, true},
	{`^\pL+\d`, true},
	{`^.{2,5}x?$`, true},
	{`^[^\x00-\x{10FFFF}]`, true},
	{`^(a){0}b()`, true},
	{`^(?:(?:ab){2}c)+$`, true},
	{`^(?P<t>[^ ]+) (?P<l>.*) ?$`, true}, // ` ?$` accepts after .* wherever it did before
	{`^[\x{D000}-\x{E000}]a`, true},      // surrogates in a class, which no text has
	{`(?i)^\x{212A}`, true},              // the Kelvin sign, folded with k and K
	// Not covered.
	{`(?P<a>.*)`, false},        // not anchored
	{`(?m)^a$`, false},          // ^ and $ of lines
	{`^a*?b`, false},            // non-greedy
	{`(?U)^a*`, false},          // non-greedy by default
	{`^a*a`, false},             // a* could stop before the a
	{`^(a|ab)`, false},          // alternatives beginning alike
	{`^(?:ab)?`, false},         // (ab) could fail after its a, and the empty match not
	{`^(?:ab){2,3}`, false},     // likewise for the third
	{`^\bfoo`, false},           // word boundary
	{`^a$b`, false},             // $ before the end
	{`^(?:a|b$)`, false},        // $ in an alternative
	{`^(?:a*)*`, false},         // a repeat of what can be empty
	{`^(?:a|)b`, false},         // an empty alternative
	{`^(a+)(a+)`, false},        // the first a+ could stop anywhere
	{`^a+$|^b`, false},          // alternation at the top
	{`^(?:(?:ab){2}c)+`, false}, // a second (ababc) could fail where one had matched
	{`^a*(?:ab)?$`, false},      // a* could leave the a to (ab)
	{`^(?:a+|b+)+$`, false},     // a+ could stop before another a+ (covering it takes more rules)
	{`^[\x{D800}]a`, false},     // regexp matches a surrogate in its literal prefix as U+FFFD
}

const logLine = "2026-11-29 10:00:00.000 INFO  [worker-3] http.server - GET /api/cart/1 served status=200"

// Inputs for every pattern: the usual lines, near misses, invalid UTF-8, newlines, folding.
var inputs = []string{
	"", "a", "b", "c", "x", "ab", "aab", "abc", "abab", "ababc", "abababc", "aaabbbccc rest", "aacc tail", "bbbccc",
	"\n", "a\nb", "\xff", "\xc3", "\xc3\xa9", "é", "ü", "\xef\xbf\xbd", "\xef\xbf\xbdx", "\xffx", "\xff\xffx", "\xed\xa0\x80a",
	"K", "k", "\u212a", "hello k", "HELLO \u212a", "hello  k", "hellö k", "word", "Word", "word\n", "aaaa", "aabbbcc", "aabbbccc",
	logLine,
	"2026-11-29 10:00:00.000 WARN [worker-3] db.Pool - slow", "2026-11-29 10:00:00.000 FATAL  [w] x - ",
	"2026-11-29 10:00:00.000 INFO [w] x - line\nbreak", "2026-11-29 10:00:00.000 info [w] x - m", "2026-11-29 INFO [w] x - m",
	`127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326`,
	`127.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 404 -`, `1 - - [x] "GET /" 2000 1`, `1 - - [] " " 200 1`,
	"2026-11-29T10:00:00Z stdout F hello world", "2026-11-29T10:00:00Z stderr P ", "2026-11-29T10:00:00Z stdin F x",
	"t stdout F\nx", "t stdout  two", "[INFO]  msg", "[INFO]msg", "[]  m", "[ÉTÉ] m", "  # c", "#", "  ", " x", "12-", "12-34", "-3",
	"é ü rest", "ééé", "xx", "xxxxx", "xxxxxx", "abcdex", "a\n", "a\nx\n", "\nx", "aabbbc", "aabbbcccc", "ababababc",
}

// alphabet makes random inputs that patterns over it often match, or nearly.
var alphabet = []string{"a", "b", "c", "x", " ", "-", "#", "1", "é", "K", "k", "\u212a", "\n", "\xff", "\xc3", "\xef\xbf\xbd", "[", "]", "_"}

func randomInput(r *rand.Rand) string {
	var b strings.Builder
	for range r.IntN(10) {
		b.WriteString(alphabet[r.IntN(len(alphabet))])
	}
	return b.String()
}

// same fails t unless m gives re's submatches for s, into a fresh dst and into a used one.
func same(t *testing.T, re *regexp.Regexp, m *Matcher, s string) {
	t.Helper()
	want := re.FindStringSubmatchIndex(s)
	if got := m.SubmatchIndex(s, nil); !slices.Equal(got, want) || (got == nil) != (want == nil) {
		t.Fatalf("%q on %q: got %v, regexp %v", re, s, got, want)
	}
	used := []int{7, 7, 7}
	if got := m.SubmatchIndex(s, used); !slices.Equal(got, want) {
		t.Fatalf("%q on %q with a used dst: got %v, regexp %v", re, s, got, want)
	}
}

func TestPatterns(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, p := range patterns {
		re := regexp.MustCompile(p.expr)
		m, ok := Compile(re)
		if ok != p.ok {
			t.Errorf("Compile(%q): ok %v, want %v", p.expr, ok, p.ok)
			continue
		}
		if !ok {
			continue
		}
		for _, s := range inputs {
			same(t, re, m, s)
		}
		// Long enough that regexp runs its NFA rather than its backtracker.
		for _, s := range []string{strings.Repeat("a", 20000), strings.Repeat("ab", 10000) + "c", logLine + strings.Repeat(" x", 10000)} {
			same(t, re, m, s)
		}
		for range 2000 {
			same(t, re, m, randomInput(r))
		}
	}
}

// Random patterns of the covered constructs and their near neighbours: every one Compile
// takes gives regexp's answers; enough are taken for that to mean something.
func TestGeneratedPatterns(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	n := 20000
	if testing.Short() {
		n = 2000
	}
	covered := 0
	for range n {
		code := make([]byte, 40)
		for i := range code {
			code[i] = byte(r.Uint32())
		}
		re, err := regexp.Compile(generate(code))
		if err != nil {
			continue
		}
		m, ok := Compile(re)
		if !ok {
			continue
		}
		covered++
		for range 50 {
			same(t, re, m, randomInput(r))
		}
	}
	t.Logf("%d of %d generated patterns covered", covered, n)
	if covered < n/10 {
		t.Fatalf("only %d of %d generated patterns covered", covered, n)
	}
}

// No allocation with room in dst.
func TestSubmatchIndexAllocs(t *testing.T) {
	re := regexp.MustCompile(patterns[0].expr)
	m, _ := Compile(re)
	dst := make([]int, 0, 2*(re.NumSubexp()+1))
	if n := testing.AllocsPerRun(100, func() { dst = m.SubmatchIndex(logLine, dst) }); n != 0 || dst == nil {
		t.Fatalf("%v allocations, match %v", n, dst)
	}
}

func BenchmarkSubmatchIndex(b *testing.B) {
	re := regexp.MustCompile(patterns[0].expr)
	b.Run("anchoredre", func(b *testing.B) {
		m, _ := Compile(re)
		dst := make([]int, 0, 2*(re.NumSubexp()+1))
		for b.Loop() {
			dst = m.SubmatchIndex(logLine, dst)
		}
	})
	b.Run("regexp", func(b *testing.B) {
		for b.Loop() {
			re.FindStringSubmatchIndex(logLine)
		}
	})
}
