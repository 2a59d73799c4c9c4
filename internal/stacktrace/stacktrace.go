// Package stacktrace tells, line by line, whether a line continues the stack trace before it, for
// the traces that Java, Python, Go, Node.js, Ruby, .NET and PHP programs print (their runtimes'
// own output and that of common logging libraries). Each language is a small state machine whose
// checks look at a bounded number of bytes at the start (and, for a few shapes, the end) of a
// line: a verdict costs about the same on a line of 50 bytes as on one of 16 KiB, and no pattern
// is ever scanned over a whole line.
//
// The Detector gives each line a Verdict, for a caller that holds the lines of the record being
// collected (package multiline):
//
//   - Start: the line begins a new record (an ordinary line, or the first line of a trace).
//   - Join: the line belongs to the record before it. A frame that follows an ordinary line joins
//     it (a log line that carries the exception, then its frames); a line of a trace in progress
//     joins it. Join also confirms the Maybe lines before it.
//   - Maybe: the line belongs to the record only if a later line confirms it with Join (a line of
//     a multi-line exception message before the first frame, the blank line between two Go
//     goroutines). If a Start comes first, the Maybe lines were not part of the record: the
//     caller gives them to a Reset Detector again, the first of them beginning a record.
//
// The Detector bounds a run of Maybe lines (MaxMaybe), so a caller holds at most that many lines
// beyond the record it has confirmed.
package stacktrace

import (
	"fmt"
	"strings"
)

// Lang is one language whose traces the Detector joins.
type Lang uint8

// The languages, as Set bits.
const (
	Java Lang = iota
	Python
	Go
	NodeJS
	Ruby
	DotNet
	PHP
	numLangs
)

var langNames = [numLangs]string{"java", "python", "go", "nodejs", "ruby", "dotnet", "php"}

// String is the language's name in configuration.
func (l Lang) String() string { return langNames[l] }

// Set is a set of languages.
type Set uint16

// All is every language.
const All Set = 1<<numLangs - 1

// Has reports whether l is in s.
func (s Set) Has(l Lang) bool { return s&(1<<l) != 0 }

// ParseSet reads language names as configuration gives them; "all" is every language.
func ParseSet(names []string) (Set, error) {
	var s Set
	for _, name := range names {
		if name == "all" {
			s |= All
			continue
		}
		found := false
		for l := range numLangs {
			if langNames[l] == name {
				s |= 1 << l
				found = true
			}
		}
		if !found {
			return 0, fmt.Errorf("unknown language %q (known: %s, all)", name, strings.Join(langNames[:], ", "))
		}
	}
	return s, nil
}

// Verdict is what a line is to the record before it; see the package doc.
type Verdict uint8

// The verdicts.
const (
	Start Verdict = iota
	Join
	Maybe
)

// MaxMaybe is the most Maybe verdicts in a row: the next line that would be one is a Start.
const MaxMaybe = 10

// state is where in a trace the Detector is; idle outside any.
type state uint8

const (
	idle       state = iota
	excMessage       // after an exception's first line: its message lines (Maybe) until a frame
	excFrames        // Java's tab-indented and Node.js's and .NET's space-indented "at" frames
	nodeSource       // after an uncaught Node.js error's file:line: the source lines before the error
	nodeEnd          // a blank line after Node.js frames: "Node.js vN" may close the trace
	pyFrames         // after Traceback: indented frame and code lines, then the error line
	pyGroup          // an ExceptionGroup tree: indented lines only
	pyAfter          // after the error line: a blank line, then a chaining sentence
	pyChain          // after a chaining sentence: a blank line, then the next traceback
	goPanic          // after panic: or fatal error:, up to the first goroutine
	goFrames         // in goroutine blocks
	goCall           // a Go function line outside a trace: its file:line confirms it
	rubyHead         // after a Ruby error line: message lines (Maybe) until "\tfrom"
	rubyFrames       // Ruby "from" lines, or the unindented backtrace of Logger
	phpMessage       // after PHP's "Uncaught": message lines (Maybe) until "Stack trace:"
	phpFrames        // PHP's "#N" frames up to "  thrown in"
)

// Detector holds one stream's place in the traces it reads. It is not safe for concurrent use.
type Detector struct {
	langs  Set
	state  state
	maybes int  // Maybe verdicts in a row
	depth  int  // open braces of a Node.js error's properties after its frames
	paren  bool // the line before ended with ')', as Ruby's Logger ends "message (Class)"
}

// New returns a Detector of the languages in langs.
func New(langs Set) *Detector { return &Detector{langs: langs} }

// Reset forgets the trace in progress, as after a flush.
func (d *Detector) Reset() { *d = Detector{langs: d.langs} }

// Next gives the verdict on the next line, without its newline.
func (d *Detector) Next(line []byte) Verdict {
	v := d.next(line)
	d.paren = loggerLine(line) && line[len(line)-1] == ')'
	if v != Maybe {
		d.maybes = 0
		return v
	}
	d.maybes++
	if d.maybes > MaxMaybe {
		// Too long to be what the Maybe lines were taken for: the caller gives them again.
		d.Reset()
		return Start
	}
	return v
}

func (d *Detector) next(line []byte) Verdict {
	if d.state != idle {
		from := d.state
		if v, ok := d.continuing(line); ok && (v != Maybe || from == nodeSource || !d.opensTrace(line)) {
			return v
		}
		d.state, d.depth = idle, 0
	}
	return d.opening(line)
}

// opensTrace reports whether line is the first line of a trace: then it is not one of the lines
// (a message's, say) that a trace in progress takes as Maybe.
func (d *Detector) opensTrace(line []byte) bool {
	probe := Detector{langs: d.langs, paren: d.paren}
	probe.opening(line)
	return probe.state != idle && probe.state != goCall
}

// continuing is the verdict of the trace in progress; ok false: the line is not part of it.
func (d *Detector) continuing(line []byte) (Verdict, bool) {
	switch d.state {
	case excMessage, excFrames, nodeSource, nodeEnd:
		return d.exception(line)
	case pyFrames, pyGroup, pyAfter, pyChain:
		return d.python(line)
	case goPanic, goFrames, goCall:
		return d.golang(line)
	case rubyHead, rubyFrames:
		return d.ruby(line)
	case phpMessage, phpFrames:
		return d.php(line)
	}
	return Start, false
}

// opening is the verdict on a line outside any trace: the first line of a trace, a frame that
// joins the line before it, or an ordinary line. The first byte picks the checks.
func (d *Detector) opening(line []byte) Verdict {
	if len(line) == 0 {
		return Start
	}
	switch firstByte[line[0]] {
	case byteIndent:
		return d.openIndented(line)
	case bytePath:
		return d.openPath(line)
	case byteWord:
		return d.openWord(line)
	}
	return Start
}

// The first bytes of lines that may open a trace; byteOther lines never do.
const (
	byteOther = iota
	byteIndent
	bytePath
	byteWord
)

var firstByte = func() (t [256]uint8) {
	for c := range 256 {
		switch b := byte(c); {
		case b == '\t' || b == ' ':
			t[c] = byteIndent
		case b == '/' || b == '.':
			t[c] = bytePath
		case b >= 'A' && b <= 'Z' || b >= 'a' && b <= 'z' || b == '_' || b == '$':
			t[c] = byteWord
		}
	}
	return t
}()

// openIndented: a frame joins the line before it and opens the trace of its language.
func (d *Detector) openIndented(line []byte) Verdict {
	switch {
	case d.langs.Has(Java) && javaFrame(line),
		(d.langs.Has(NodeJS) || d.langs.Has(DotNet)) && spaceFrame(line):
		d.state = excFrames
		d.depth = openBrace(line)
		return Join
	case d.langs.Has(Ruby) && rubyFrom(line):
		d.state = rubyFrames
		return Join
	case d.langs.Has(Python) && hasPrefix(line, pyGroupHead):
		d.state = pyGroup
		return Start
	case d.langs&attaching != 0:
		// An indented line may be a line of the message of an exception logged on the line
		// before ("order failed: RangeError: validation failed:"), if frames follow.
		return Maybe
	}
	return Start
}

// attaching are the languages whose frames may follow a log line that carries the exception.
const attaching Set = 1<<Java | 1<<NodeJS | 1<<DotNet | 1<<PHP

// openPath: Ruby's error line, Node.js's file:line of an uncaught error.
func (d *Detector) openPath(line []byte) Verdict {
	switch {
	case d.langs.Has(Ruby) && rubyLine(line, firstWord(line)):
		return d.openRuby()
	case d.langs.Has(NodeJS) && nodeSourceLine(line):
		d.state = nodeSource
		return Start
	}
	return Start
}

// openWord: the first lines of traces that begin with a word.
func (d *Detector) openWord(line []byte) Verdict {
	if d.langs.Has(PHP) && string(line) == phpStackTrace {
		// PHP's exception logged after a message: "order failed: DomainException: ..."
		d.state = phpFrames
		return Join
	}
	if s := d.fixedHead(line); s != idle {
		d.state = s
		return Start
	}
	l := d.langs
	w := firstWord(line)
	switch {
	case l&attaching != 0 && exceptionLine(line, w):
		d.state = excMessage
	case l.Has(Ruby) && rubyLine(line, w):
		return d.openRuby()
	case l.Has(NodeJS) && nodeSourceLine(line):
		d.state = nodeSource
	case l.Has(Go) && goCallLine(line, w):
		// runtime/debug.Stack() after the log line that printed it: its file:line confirms.
		d.state = goCall
		return Maybe
	}
	return Start
}

// fixedHead is the state a trace's fixed first line opens, idle for none.
func (d *Detector) fixedHead(line []byte) state {
	h := &fixedHeads[line[0]]
	if h.prefix == "" || !d.langs.Has(h.lang) || !hasPrefix(line, h.prefix) ||
		h.state == goFrames && !goroutineLine(line) {
		return idle
	}
	return h.state
}

type fixedHead struct {
	lang   Lang
	prefix string
	state  state
}

// fixedHeads are the first lines of traces that begin with a fixed prefix, by its first byte
// (no two share one): a line is compared with one prefix at most.
var fixedHeads = func() (t [256]fixedHead) {
	for _, h := range []fixedHead{
		{Python, pyTraceback, pyFrames},
		{Go, "panic: ", goPanic},
		{Go, "fatal error: ", goPanic},
		{Go, "goroutine ", goFrames},
		{Java, "Exception in thread \"", excMessage},
		{DotNet, "Unhandled exception. ", excMessage},
		{PHP, "PHP Fatal error:  Uncaught ", phpMessage},
		{PHP, "Fatal error: Uncaught ", phpMessage},
	} {
		t[h.prefix[0]] = h
	}
	return t
}()

// openRuby: a Ruby error line begins a trace, or joins the line before it when that ends as
// Ruby's Logger ends an exception's message ("boom (RuntimeError)").
func (d *Detector) openRuby() Verdict {
	if d.paren {
		d.state = rubyFrames
		return Join
	}
	d.state = rubyHead
	return Start
}
