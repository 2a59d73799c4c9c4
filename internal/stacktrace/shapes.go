package stacktrace

import "bytes"

// The shapes of trace lines. Each looks at a bounded number of bytes from the start of the line
// (scanLimit at most) and, for some, from its end.

// scanLimit bounds a scan from the start of a line (a path, a class name, a function name).
const scanLimit = 512

const (
	pyTraceback   = "Traceback (most recent call last):"
	pyGroupHead   = "  + Exception Group Traceback (most recent call last):"
	pyDuring      = "During handling of the above exception, another exception occurred:"
	pyDirectCause = "The above exception was the direct cause of the following exception:"
	phpStackTrace = "Stack trace:"
)

func hasPrefix(line []byte, p string) bool {
	return len(line) >= len(p) && string(line[:len(p)]) == p
}

func hasSuffix(line []byte, s string) bool {
	return len(line) >= len(s) && string(line[len(line)-len(s):]) == s
}

func head(line []byte) []byte { return line[:min(len(line), scanLimit)] }

// indent is the number of leading bytes of line in set (space, tab), up to 32.
func indent(line []byte, tabs bool) int {
	n := 0
	for n < len(line) && n < 32 && (line[n] == ' ' || tabs && line[n] == '\t') {
		n++
	}
	return n
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isIdent(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || isDigit(c) || c == '_' || c == '$'
}

// javaFrame: "\tat pkg.Class.method(File.java:10)", tab-indented (twice under "Suppressed:").
func javaFrame(line []byte) bool {
	n := indent(line, true)
	return n > 0 && line[0] == '\t' && hasPrefix(line[n:], "at ") && len(line) > n+3 && line[n+3] != ' '
}

// spaceFrame: Node.js's "    at f (/app/x.js:3:9)" and .NET's "   at P.M() in /src/P.cs:line 5":
// space-indented "at " and a last byte a frame ends with (prose "   at noon we met" has none).
func spaceFrame(line []byte) bool {
	n := indent(line, false)
	if n == 0 || !hasPrefix(line[n:], "at ") || len(line) <= n+3 || line[n+3] == ' ' {
		return false
	}
	c := line[len(line)-1]
	return c == ')' || c == ']' || c == '{' || c == '>' || isDigit(c)
}

// openBrace is 1 when line ends with '{' or '[' (a Node.js error's properties follow its frames).
func openBrace(line []byte) int {
	if len(line) > 0 && (line[len(line)-1] == '{' || line[len(line)-1] == '[') {
		return 1
	}
	return 0
}

// word is where the first word of a line ends: at its first ' ' or ':' (scanLimit at most);
// dotted: the word has only the bytes of a dotted name.
type word struct {
	end    int
	dotted bool
	stop   byte // the byte that ended it; 0 at the end of the scan
}

// firstWord scans the line's first word once, for exceptionLine, rubyLine and goCallLine. A
// byte that neither a dotted name nor a path has ('=' of logfmt, '[', '(') ends it early.
func firstWord(line []byte) word {
	h := head(line)
	w := word{dotted: true}
	for ; w.end < len(h); w.end++ {
		switch wordClass[h[w.end]] {
		case wordName:
		case wordPath:
			w.dotted = false
		default:
			w.stop = h[w.end]
			w.dotted = w.dotted && wordClass[w.stop] == wordEnd
			return w
		}
	}
	return w
}

// The classes of bytes in a line's first word.
const (
	wordOther = iota // in neither a dotted name nor a path
	wordName         // of a dotted name (and of a path)
	wordPath         // of a path only
	wordEnd          // ' ' or ':'
)

var wordClass = func() (t [256]uint8) {
	for c := range 256 {
		switch b := byte(c); {
		case isIdent(b) || b == '.':
			t[c] = wordName
		case b == '/' || b == '-' || b == '+' || b == '@' || b == '~' || b == '\\':
			t[c] = wordPath
		}
	}
	t[' '], t[':'] = wordEnd, wordEnd
	return t
}()

// exceptionLine: "java.lang.IllegalStateException: msg", "TypeError: msg",
// "TypeError [ERR_X]: msg", "System.InvalidOperationException: msg", or the name alone: a
// dotted name whose last part ends with Exception, Error or Throwable, then ':' or the end.
func exceptionLine(line []byte, w word) bool {
	name := line[:w.end]
	if !w.dotted || !hasSuffix(name, "Exception") && !hasSuffix(name, "Error") && !hasSuffix(name, "Throwable") {
		return false
	}
	rest := line[w.end:]
	if hasPrefix(rest, " [") { // Node.js's error code
		end := bytes.IndexByte(head(rest), ']')
		if end < 0 {
			return false
		}
		rest = rest[end+1:]
	}
	return len(rest) == 0 || rest[0] == ':' && (len(rest) == 1 || rest[1] == ' ')
}

// nodeSourceLine: "/app/server.js:17", the first line of an uncaught Node.js error (the source
// line and a caret follow it, then the error).
func nodeSourceLine(line []byte) bool {
	if len(line) == 0 || !isDigit(line[len(line)-1]) ||
		line[0] != '/' && !hasPrefix(line, "file:///") && !hasPrefix(line, "node:") {
		return false
	}
	path, ok := cutLineNumber(line)
	return ok && (hasSuffix(path, ".js") || hasSuffix(path, ".mjs") || hasSuffix(path, ".cjs") || hasSuffix(path, ".ts"))
}

// cutLineNumber cuts ":N" off the end of line.
func cutLineNumber(line []byte) ([]byte, bool) {
	i := len(line)
	for i > 0 && len(line)-i < 10 && isDigit(line[i-1]) {
		i--
	}
	if i == len(line) || i == 0 || line[i-1] != ':' {
		return nil, false
	}
	return line[:i-1], true
}

// rubyLine: "/app/x.rb:3:in `inner': boom (RuntimeError)" (Ruby 3.3 and before) or
// "app.rb:3:in 'Object#inner': boom (RuntimeError)" (3.4), and the frames of Logger's backtrace.
func rubyLine(line []byte, w word) bool {
	p := w.end
	if p < 3 || p == len(line) || line[p] != ':' || string(line[p-3:p]) != ".rb" {
		return false
	}
	n := p + 1
	for n < len(line) && n-p < 12 && isDigit(line[n]) {
		n++
	}
	return n > p+1 && hasPrefix(line[n:], ":in ")
}

// loggerLine: "E, [2026-12-02T09:00:00.123456 #1] ERROR -- : boom (RuntimeError)", the start of
// a line in the default format of Ruby's Logger.
func loggerLine(line []byte) bool {
	return len(line) > 4 && line[1] == ',' && line[2] == ' ' && line[3] == '['
}

// rubyFrom: "\tfrom app.rb:7:in `outer'", "\tfrom <internal:kernel>:187:in `loop'".
func rubyFrom(line []byte) bool {
	return hasPrefix(line, "\tfrom ") && (rubyLine(line[6:], firstWord(line[6:])) || hasPrefix(line[6:], "<internal:"))
}

// goroutineLine: "goroutine 1 [running]:".
func goroutineLine(line []byte) bool {
	return hasPrefix(line, "goroutine ") && len(line) > 10 && isDigit(line[10]) && hasSuffix(line, "]:")
}

// goCallLine: "runtime/debug.Stack()", "main.(*T).m(0x1, ...)": a first word with a '.' ended by
// '(', and a last byte ')'.
func goCallLine(line []byte, w word) bool {
	return w.stop == '(' && bytes.IndexByte(line[:w.end], '.') >= 0 && line[len(line)-1] == ')'
}

// goFuncLine: a function line inside goroutine blocks ("panic({0x4a5e60?, 0x5b1f30?})" too).
func goFuncLine(line []byte) bool {
	if len(line) == 0 || line[len(line)-1] != ')' || line[0] == ' ' || line[0] == '\t' {
		return false
	}
	h := head(line)
	p := bytes.IndexByte(h, '(')
	return p > 0 && bytes.IndexByte(h[:p], ' ') < 0
}

// goFileLine: "\t/usr/local/go/src/runtime/debug/stack.go:26 +0x5e", the file:line of a frame.
func goFileLine(line []byte) bool {
	if len(line) < 2 || line[0] != '\t' || line[1] == ' ' || line[1] == '\t' {
		return false
	}
	if i := bytes.LastIndex(line[max(0, len(line)-24):], []byte(" +0x")); i >= 0 {
		line = line[:max(0, len(line)-24)+i]
	}
	path, ok := cutLineNumber(line)
	return ok && hasSuffix(path, ".go")
}
