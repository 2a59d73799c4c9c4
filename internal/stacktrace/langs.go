package stacktrace

// The state machines of the traces in progress. Each returns ok false when the line is not part
// of its trace: the trace is over, and the line is taken as one outside any trace.

// exception continues Java's, Node.js's and .NET's traces: an exception's first line, its
// message lines, its "at" frames, its causes.
func (d *Detector) exception(line []byte) (Verdict, bool) {
	node := d.langs.Has(NodeJS)
	switch {
	case d.depth > 0:
		// A Node.js error's properties after its frames, "[cause]:" among them, up to '}'.
		if len(line) == 0 || line[0] != ' ' && line[0] != '}' && line[0] != ']' {
			return Start, false
		}
		if line[0] == '}' || line[0] == ']' {
			d.depth--
		}
		d.depth += openBrace(line)
		return Join, true
	case d.langs.Has(Java) && javaFrame(line),
		(node || d.langs.Has(DotNet)) && spaceFrame(line):
		d.state = excFrames
		d.depth = openBrace(line)
		return Join, true
	case exceptionCause(line):
		d.state = excMessage
		return Join, true
	case exceptionDetail(line):
		d.state = excFrames
		return Join, true
	case d.langs.Has(PHP) && string(line) == phpStackTrace: // PHP's exception as a string
		d.state = phpFrames
		return Join, true
	}
	switch d.state {
	case excMessage, nodeSource:
		// Message lines, or the source line, caret and blank line of an uncaught Node.js error.
		return Maybe, true
	case excFrames:
		if node && len(line) == 0 {
			d.state = nodeEnd
			return Maybe, true
		}
	case nodeEnd:
		if hasPrefix(line, "Node.js v") {
			d.state = idle
			return Join, true
		}
	}
	return Start, false
}

// exceptionCause: Java's "Caused by: " and "\tSuppressed: ", .NET's " ---> " inner exception.
func exceptionCause(line []byte) bool {
	n := indent(line, true)
	rest := line[n:]
	return hasPrefix(rest, "Caused by: ") || n > 0 && (hasPrefix(rest, "Suppressed: ") || hasPrefix(rest, "---> "))
}

// exceptionDetail: Java's "\t... 12 more", Node.js's "    ... 7 lines matching cause stack
// trace ...", .NET's "   --- End of inner exception stack trace ---" (and "--- End of stack
// trace from previous location ---", unindented before .NET 5).
func exceptionDetail(line []byte) bool {
	n := indent(line, true)
	return n > 0 && hasPrefix(line[n:], "... ") || hasPrefix(line[n:], "--- End of ")
}

// python continues a traceback: indented frame, code and marker lines, the error line, chained
// tracebacks and ExceptionGroup trees.
func (d *Detector) python(line []byte) (Verdict, bool) {
	indented := len(line) > 0 && line[0] == ' '
	switch d.state {
	case pyFrames:
		if indented {
			return Join, true
		}
		if len(line) > 0 { // the error line: "ValueError: bad value"
			d.state = pyAfter
			return Join, true
		}
	case pyGroup:
		if indented {
			return Join, true
		}
	case pyAfter:
		switch {
		case len(line) == 0:
			return Maybe, true
		case hasPrefix(line, pyDuring) || hasPrefix(line, pyDirectCause):
			d.state = pyChain
			return Join, true
		}
	case pyChain:
		switch {
		case len(line) == 0:
			return Join, true
		case hasPrefix(line, pyTraceback):
			d.state = pyFrames
			return Join, true
		case hasPrefix(line, pyGroupHead):
			d.state = pyGroup
			return Join, true
		}
	}
	return Start, false
}

// golang continues a Go panic or goroutine dump, or confirms a function line with its file:line.
func (d *Detector) golang(line []byte) (Verdict, bool) {
	if d.state == goCall {
		if goFileLine(line) {
			d.state = goFrames
			return Join, true
		}
		return Start, false
	}
	switch {
	case len(line) > 0 && line[0] == '\t':
		return Join, true
	case goroutineLine(line):
		d.state = goFrames
		return Join, true
	case len(line) == 0:
		return Maybe, true
	}
	if d.state == goPanic {
		// "panic: x [recovered]", "[signal SIGSEGV: ...]", the lines of a multi-line message.
		if hasPrefix(line, "panic: ") || hasPrefix(line, "fatal error: ") || hasPrefix(line, "[signal ") {
			return Join, true
		}
		return Maybe, true
	}
	switch {
	case hasPrefix(line, "created by ") || hasPrefix(line, "...additional frames elided..."):
		return Join, true
	case hasPrefix(line, "exit status "): // go run's last line
		d.state = idle
		return Join, true
	case goFuncLine(line): // confirmed by the file:line after it
		return Maybe, true
	}
	return Start, false
}

// ruby continues a Ruby backtrace: "\tfrom" lines, the error lines of causes, Logger's frames.
func (d *Detector) ruby(line []byte) (Verdict, bool) {
	switch {
	case rubyFrom(line) || hasPrefix(line, "\t ... "): // "\t ... 8 levels..."
		d.state = rubyFrames
		return Join, true
	case rubyLine(line, firstWord(line)):
		// A cause's error line ("...: inner (ArgumentError)") may have message lines after it;
		// a frame ends with the method's closing quote.
		d.state = rubyHead
		if hasSuffix(line, "'") {
			d.state = rubyFrames
		}
		return Join, true
	case d.state == rubyHead:
		return Maybe, true
	}
	return Start, false
}

// php continues PHP's uncaught exception: message lines, "Stack trace:", "#N" frames, previous
// exceptions ("Next ..."), up to "  thrown in".
func (d *Detector) php(line []byte) (Verdict, bool) {
	switch {
	case hasPrefix(line, phpStackTrace):
		d.state = phpFrames
		return Join, true
	case d.state == phpMessage:
		return Maybe, true
	case len(line) > 1 && line[0] == '#' && isDigit(line[1]):
		return Join, true
	case hasPrefix(line, "  thrown in "):
		d.state = idle
		return Join, true
	case hasPrefix(line, "Next "):
		d.state = phpMessage
		return Join, true
	case len(line) == 0:
		return Maybe, true
	}
	return Start, false
}
