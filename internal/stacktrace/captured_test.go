package stacktrace_test

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mergelog/otelcol-mergelog/internal/multiline"
	"github.com/mergelog/otelcol-mergelog/internal/stacktrace"
	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

var update = flag.Bool("update", false, "rewrite testdata/<lang>/output.txt from the runtimes")

// Each testdata/<lang> holds a program, output.txt (what it printed, its directory shown as
// /app) and records.txt: the records a reader should make of it, as the ranges "a-b" of the
// lines (from 1) of each record of several lines; every other line is a record of its own.
// dotnet has no program run here (see testdata/dotnet/README.md).
var langs = []struct {
	lang stacktrace.Lang
	runs [][]string // the commands that print output.txt, one after another, in a copy of the directory
}{
	{stacktrace.Java, [][]string{{"java", "Main.java"}}},
	{stacktrace.Python, [][]string{{"python3", "app.py"}}},
	{stacktrace.Go, [][]string{{"go", "run", "."}, {"go", "run", ".", "deadlock"}}},
	{stacktrace.NodeJS, [][]string{{"node", "app.js"}}},
	{stacktrace.Ruby, [][]string{{"ruby", "app.rb"}}},
	{stacktrace.DotNet, nil},
	{stacktrace.PHP, [][]string{{"php", "app.php"}}},
}

// TestCapturedOutputs joins each captured output, with its language on and with every language
// on, and compares the records with records.txt.
func TestCapturedOutputs(t *testing.T) {
	for _, l := range langs {
		t.Run(l.lang.String(), func(t *testing.T) {
			dir := filepath.Join("testdata", l.lang.String())
			out, err := os.ReadFile(filepath.Join(dir, "output.txt"))
			require.NoError(t, err)
			want := wantRecords(t, dir, out)
			assert.Equal(t, want, records(t, 1<<l.lang, out), "only %s on", l.lang)
			assert.Equal(t, want, records(t, stacktrace.All, out), "every language on")
		})
	}
}

// TestRuntimes runs the programs on the runtimes and checks that what they print now is made
// into the same records as the captured output (lines may differ: times, addresses, versions);
// with -update it rewrites output.txt. A runtime that is not installed skips its language.
func TestRuntimes(t *testing.T) {
	for _, l := range langs {
		if l.runs == nil {
			continue
		}
		t.Run(l.lang.String(), func(t *testing.T) {
			if _, err := exec.LookPath(l.runs[0][0]); err != nil {
				t.Skipf("%s is not installed (%v): testdata/%s/output.txt is not regenerated (.ci/run installs it)",
					l.runs[0][0], err, l.lang)
			}
			dir := filepath.Join("testdata", l.lang.String())
			out := runProgram(t, dir, l.runs)
			if *update {
				testkit.WriteFile(t, filepath.Join(dir, "output.txt"), out)
			}
			captured, err := os.ReadFile(filepath.Join(dir, "output.txt"))
			require.NoError(t, err)
			require.Equal(t, bytes.Count(captured, []byte("\n")), bytes.Count(out, []byte("\n")),
				"the program prints another number of lines than output.txt has:\n%s", out)
			assert.Equal(t, wantRecords(t, dir, out), records(t, stacktrace.All, out), "output:\n%s", out)
		})
	}
}

// runProgram runs the commands in a copy of dir and returns what they printed, stdout and
// stderr in one, with the copy's path replaced by /app.
func runProgram(t *testing.T, dir string, runs [][]string) []byte {
	work := t.TempDir()
	require.NoError(t, os.CopyFS(work, os.DirFS(dir)))
	var out bytes.Buffer
	for _, run := range runs {
		cmd := exec.Command(run[0], run[1:]...)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod")
		cmd.Stdout, cmd.Stderr = &out, &out
		// The programs end in an uncaught error: a non-zero exit is what they do.
		if err := cmd.Run(); err != nil {
			var exit *exec.ExitError
			require.True(t, errors.As(err, &exit), "%v: %v", run, err)
		}
	}
	return bytes.ReplaceAll(out.Bytes(), []byte(work), []byte("/app"))
}

// wantRecords reads records.txt and gives the records it describes of out.
func wantRecords(t *testing.T, dir string, out []byte) []string {
	spec, err := os.ReadFile(filepath.Join(dir, "records.txt"))
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	var want []string
	next := 1
	for _, r := range strings.Fields(string(spec)) {
		from, to, ok := strings.Cut(r, "-")
		require.True(t, ok, "range %q", r)
		a, err1 := strconv.Atoi(from)
		b, err2 := strconv.Atoi(to)
		require.NoError(t, errors.Join(err1, err2))
		require.True(t, next <= a && a < b && b <= len(lines), "range %q after line %d of %d", r, next, len(lines))
		want = append(want, lines[next-1:a-1]...)
		want = append(want, strings.Join(lines[a-1:b], "\n"))
		next = b + 1
	}
	return append(want, lines[next-1:]...)
}

// records joins out's lines with detection of langs, checking that each record carries the end
// offset of its last line.
func records(t *testing.T, langs stacktrace.Set, out []byte) []string {
	var got []string
	var pos int64
	j, err := multiline.New(multiline.Config{Detect: langs}, func(text []byte, end int64) {
		got = append(got, string(text))
		pos += int64(len(text)) + 1
		require.Equal(t, pos, end, "end offset of record %q", text)
	})
	require.NoError(t, err)
	var off int64
	for line := range bytes.Lines(out) {
		off += int64(len(line))
		j.Add(bytes.TrimSuffix(line, []byte("\n")), off)
	}
	j.Flush()
	return got
}
