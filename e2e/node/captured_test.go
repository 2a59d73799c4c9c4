package node

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// capturedDir holds what real runtimes printed, by language, with the records each output makes
// (internal/stacktrace's test data; TestRuntimes there regenerates it).
const capturedDir = "../../internal/stacktrace/testdata"

// captured is one program's output and the records a reader should make of it.
type captured struct {
	lang    string
	text    string   // the output, lines ending in '\n'
	records []string // each a line, or a trace's lines joined with '\n'
	inside  []bool   // by line (from 0): the line continues a record of several lines
}

// capturedOutputs reads every language's output.txt and records.txt.
func capturedOutputs() ([]captured, error) {
	dirs, err := os.ReadDir(capturedDir)
	if err != nil {
		return nil, err
	}
	var outs []captured
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		c, err := readCaptured(d.Name())
		if err != nil {
			return nil, err
		}
		outs = append(outs, c)
	}
	return outs, nil
}

// readCaptured reads lang's output and its records.txt: the ranges "first-last" (lines from 1)
// of the records of several lines; every other line is a record of its own.
func readCaptured(lang string) (captured, error) {
	text, err := os.ReadFile(filepath.Join(capturedDir, lang, "output.txt"))
	if err != nil {
		return captured{}, err
	}
	spec, err := os.ReadFile(filepath.Join(capturedDir, lang, "records.txt"))
	if err != nil {
		return captured{}, err
	}
	lines := strings.Split(strings.TrimSuffix(string(text), "\n"), "\n")
	c := captured{lang: lang, text: string(text), inside: make([]bool, len(lines))}
	joinedUpTo := 0 // lines before it (from 0) are in c.records
	for _, r := range strings.Fields(string(spec)) {
		first, last, err := lineRange(r, joinedUpTo, len(lines))
		if err != nil {
			return captured{}, fmt.Errorf("%s/records.txt: %w", lang, err)
		}
		c.records = append(c.records, lines[joinedUpTo:first]...)
		c.records = append(c.records, strings.Join(lines[first:last+1], "\n"))
		for i := first + 1; i <= last; i++ {
			c.inside[i] = true
		}
		joinedUpTo = last + 1
	}
	c.records = append(c.records, lines[joinedUpTo:]...)
	return c, nil
}

// lineRange parses "a-b" into the indexes (from 0) of its lines, which must lie in from..n-1.
func lineRange(r string, from, n int) (first, last int, err error) {
	a, b, ok := strings.Cut(r, "-")
	first, errA := strconv.Atoi(a)
	last, errB := strconv.Atoi(b)
	if !ok || errA != nil || errB != nil || first <= from || last <= first || last > n {
		return 0, 0, fmt.Errorf("range %q: not a-b within lines %d-%d", r, from+1, n)
	}
	return first - 1, last - 1, nil
}

// startTraceRun reads the captured outputs and makes the run's directory (see runDir).
func startTraceRun(t *testing.T, name string) ([]captured, string) {
	t.Helper()
	outputs, err := capturedOutputs()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := runDir(t.TempDir(), name)
	if err != nil {
		t.Fatal(err)
	}
	return outputs, dir
}
