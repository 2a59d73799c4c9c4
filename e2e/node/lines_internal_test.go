package node

import (
	"strings"
	"testing"
)

// The gateway's verdicts rest on these: a whole line is recognised, and no piece of one is
// taken for whole, while every piece longer than two tokens names its line.
func TestLineParsing(t *testing.T) {
	line := string(lineText(nil, "c3", 41, 3*maxLineSize+100))
	if id, ok := parseWhole(line); !ok || id != (lineID{"c3", 41}) {
		t.Fatalf("whole line: %v %v", id, ok)
	}
	for _, cut := range []int{minLineSize, maxLineSize, 2 * maxLineSize, len(line) - 40} {
		for _, piece := range []string{line[:cut], line[cut:]} {
			if _, ok := parseWhole(piece); ok {
				t.Errorf("piece at %d taken for a whole line", cut)
			}
			if id, ok := parsePiece(piece); !ok || id != (lineID{"c3", 41}) {
				t.Errorf("piece %q…: %v %v", piece[:20], id, ok)
			}
		}
	}
	if _, ok := parseWhole(strings.Replace(line, "c3:41|", "c3:42|", 1)); ok {
		t.Error("a line with another line's token taken for whole")
	}
}
