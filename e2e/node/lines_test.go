package node

import (
	"fmt"
	"strconv"
	"strings"
)

// A line of the test says which line it is everywhere in it, so that the gateway can tell a
// whole line from a piece of one and name the line a piece belongs to:
//
//	<container> <seq> <length> <container>:<seq>|<container>:<seq>|…
//
// cut to exactly length bytes (the newline excluded).

// lineText appends line seq of container id, length bytes long, to b. length must exceed the
// header's (minLineSize does).
func lineText(b []byte, id string, seq, length int) []byte {
	start := len(b)
	b = fmt.Appendf(b, "%s %d %d ", id, seq, length)
	token := fmt.Appendf(nil, "%s:%d|", id, seq)
	for len(b)-start < length {
		b = append(b, token...)
	}
	return b[:start+length]
}

// minLineSize is more than any line's header.
const minLineSize = 64

// lineID names a line: its container and its sequence number in that container's output.
type lineID struct {
	container string
	seq       int
}

// parseWhole reports which line body is, if it is one of the test's lines whole.
func parseWhole(body string) (lineID, bool) {
	fields := strings.SplitN(body, " ", 4)
	if len(fields) < 4 {
		return lineID{}, false
	}
	seq, err1 := strconv.Atoi(fields[1])
	length, err2 := strconv.Atoi(fields[2])
	if err1 != nil || err2 != nil || length != len(body) {
		return lineID{}, false
	}
	id := lineID{fields[0], seq}
	if string(lineText(nil, id.container, seq, length)) != body {
		return lineID{}, false
	}
	return id, true
}

// parsePiece names the line a piece of a line (not a whole one) belongs to: by its header if it
// begins the line, else by the first whole token in it.
func parsePiece(body string) (lineID, bool) {
	if fields := strings.SplitN(body, " ", 3); len(fields) == 3 {
		if seq, err := strconv.Atoi(fields[1]); err == nil && !strings.Contains(fields[0], "|") {
			return lineID{fields[0], seq}, true
		}
	}
	i := strings.IndexByte(body, '|')
	if i < 0 {
		return lineID{}, false
	}
	token, _, ok := strings.Cut(body[i+1:], "|")
	if !ok {
		return lineID{}, false
	}
	container, seqText, ok := strings.Cut(token, ":")
	seq, err := strconv.Atoi(seqText)
	if !ok || err != nil {
		return lineID{}, false
	}
	return lineID{container, seq}, true
}
