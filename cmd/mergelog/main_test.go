package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/mergelog/otelcol-mergelog/internal/merge"
	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func runMergelog(t *testing.T, stdin string, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	var out, errb bytes.Buffer
	o, files, err := parseFlags(args, &errb)
	if err != nil {
		return "", errb.String() + err.Error(), 2
	}
	status = run(o, files, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), status
}

func TestMergesByUTCInstantAcrossZones(t *testing.T) {
	dir := t.TempDir()
	// The same three instants written in three zones: 12:00Z, 12:00:01Z, 12:00:02Z.
	paris := testkit.WriteFile(t, filepath.Join(dir, "paris.log"), []byte(
		"p1 - - [10/Oct/2026:14:00:00 +0200] \"GET / HTTP/1.1\" 200 1\n"+
			"p2 - - [10/Oct/2026:14:00:02 +0200] \"GET / HTTP/1.1\" 200 1\n"))
	tokyo := testkit.WriteFile(t, filepath.Join(dir, "tokyo.log.gz"), testkit.Compress(t, testkit.Gzip, []byte(
		"t1 - - [10/Oct/2026:21:00:01 +0900] \"GET / HTTP/1.1\" 200 1\n")))
	ny := testkit.WriteFile(t, filepath.Join(dir, "ny.log"), []byte(
		"n1 - - [10/Oct/2026:08:00:00 -0400] \"GET / HTTP/1.1\" 200 1\n"+
			"n2 - - [10/Oct/2026:08:00:02 -0400] \"GET / HTTP/1.1\" 200 1\n"))
	out, errs, status := runMergelog(t, "", paris, tokyo, ny)
	if status != 0 {
		t.Fatalf("status %d: %s", status, errs)
	}
	var first []string
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		first = append(first, strings.Fields(l)[0])
	}
	// Ties at 12:00:00 and 12:00:02 keep the command-line order (paris before ny).
	if want := []string{"p1", "n1", "t1", "p2", "n2"}; !slices.Equal(first, want) {
		t.Fatalf("order %v, want %v", first, want)
	}
}

func TestLastLineWithoutNewlineIsNeitherGluedNorDropped(t *testing.T) {
	dir := t.TempDir()
	a := testkit.WriteFile(t, filepath.Join(dir, "a.log"), []byte("a [10/Oct/2026:14:00:00 +0000] x\na-last [10/Oct/2026:14:00:05 +0000] no-newline"))
	b := testkit.WriteFile(t, filepath.Join(dir, "b.log"), []byte("b [10/Oct/2026:14:00:01 +0000] y\r\n\x00bin\xff [10/Oct/2026:14:00:09 +0000]\n"))
	out, _, status := runMergelog(t, "", a, b)
	want := "a [10/Oct/2026:14:00:00 +0000] x\nb [10/Oct/2026:14:00:01 +0000] y\r\n" +
		"a-last [10/Oct/2026:14:00:05 +0000] no-newline\n\x00bin\xff [10/Oct/2026:14:00:09 +0000]\n"
	if status != 0 || out != want {
		t.Fatalf("status %d\ngot  %q\nwant %q", status, out, want)
	}
}

func TestUntimedLinesStayWithTheirPredecessor(t *testing.T) {
	dir := t.TempDir()
	a := testkit.WriteFile(t, filepath.Join(dir, "a.log"), []byte("head without time\na [10/Oct/2026:14:00:02 +0000] x\ngarbage\n"))
	b := testkit.WriteFile(t, filepath.Join(dir, "b.log"), []byte("b [10/Oct/2026:14:00:01 +0000] y\nb [10/Oct/2026:14:00:03 +0000] z\n"))
	out, errs, status := runMergelog(t, "", "-stats", a, b)
	want := "head without time\nb [10/Oct/2026:14:00:01 +0000] y\na [10/Oct/2026:14:00:02 +0000] x\ngarbage\nb [10/Oct/2026:14:00:03 +0000] z\n"
	if status != 0 || out != want {
		t.Fatalf("status %d\ngot  %q\nwant %q", status, out, want)
	}
	// The stats table names each input with its lines and malformed count.
	if !regexpLine(errs, a, "3", "2") || !regexpLine(errs, b, "2", "0") {
		t.Fatalf("stats:\n%s", errs)
	}
}

// regexpLine reports whether some line of s starts with name followed by the given columns.
func regexpLine(s, name string, cols ...string) bool {
	for _, l := range strings.Split(s, "\n") {
		f := strings.Fields(l)
		if len(f) > len(cols) && f[0] == name && slices.Equal(f[1:1+len(cols)], cols) {
			return true
		}
	}
	return false
}

func TestCorruptInputIsReportedAndOthersGoOn(t *testing.T) {
	dir := t.TempDir()
	var lines strings.Builder
	for i := range 2000 {
		lines.WriteString("c [10/Oct/2026:14:00:00 +0000] line ")
		lines.WriteString(strings.Repeat("x", i%50))
		lines.WriteString("\n")
	}
	full := testkit.Compress(t, testkit.Gzip, []byte(lines.String()))
	cut := testkit.WriteFile(t, filepath.Join(dir, "cut.log.gz"), full[:len(full)/2])
	good := testkit.WriteFile(t, filepath.Join(dir, "good.log"), []byte("g [10/Oct/2026:15:00:00 +0000] fine\n"))
	missing := filepath.Join(dir, "missing.log")
	out, errs, status := runMergelog(t, "", cut, missing, good)
	if status != 1 {
		t.Fatalf("status %d, want 1", status)
	}
	if !strings.Contains(errs, "cut.log.gz: gzip") || !strings.Contains(errs, "compressed bytes") || !strings.Contains(errs, "missing.log") {
		t.Fatalf("stderr does not name the damage: %s", errs)
	}
	got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if got[len(got)-1] != "g [10/Oct/2026:15:00:00 +0000] fine" {
		t.Fatalf("the good input is missing: last line %q", got[len(got)-1])
	}
	// Every line before the damage is delivered: a prefix of the original, whole lines plus at
	// most one cut-off tail.
	delivered := strings.Join(got[:len(got)-1], "\n")
	if len(got) < 100 || !strings.HasPrefix(lines.String(), delivered) {
		t.Fatalf("delivered %d lines, not a prefix of the input", len(got)-1)
	}
}

func TestStdinAndMultiline(t *testing.T) {
	dir := t.TempDir()
	java := testkit.WriteFile(t, filepath.Join(dir, "app.log"), []byte("2026-10-10T12:00:01Z ERROR boom\n\tat A.b(A.java:1)\n\tat C.d(C.java:2)\n2026-10-10T12:00:03Z INFO ok\n"))
	stdin := "2026-10-10T12:00:02Z INFO from stdin\n"
	out, errs, status := runMergelog(t, stdin, "-format", "rfc3339", "-line-start", `\d{4}-`, java, "-")
	want := "2026-10-10T12:00:01Z ERROR boom\n\tat A.b(A.java:1)\n\tat C.d(C.java:2)\n" +
		"2026-10-10T12:00:02Z INFO from stdin\n2026-10-10T12:00:03Z INFO ok\n"
	if status != 0 || out != want {
		t.Fatalf("status %d %s\ngot  %q\nwant %q", status, errs, out, want)
	}
}

func TestFlagErrors(t *testing.T) {
	if _, errs, status := runMergelog(t, ""); status != 2 || !strings.Contains(errs, "no input files") {
		t.Errorf("no files: status %d %q", status, errs)
	}
	if _, errs, status := runMergelog(t, "", "-line-start", "(", "x"); status != 2 || !strings.Contains(errs, "-line-start") {
		t.Errorf("bad regexp: status %d %q", status, errs)
	}
	if _, errs, status := runMergelog(t, "", "-format", "nope", "x"); status != 2 || !strings.Contains(errs, "nope") {
		t.Errorf("bad format: status %d %q", status, errs)
	}
	if _, errs, status := runMergelog(t, "", "-", "-"); status != 2 || !strings.Contains(errs, "more than once") {
		t.Errorf("stdin twice: status %d %q", status, errs)
	}
	var errb bytes.Buffer
	if _, _, err := parseFlags([]string{"-help"}, &errb); err == nil || !strings.Contains(errb.String(), "UTC") {
		t.Errorf("help: %v %q", err, errb.String())
	}
}

// A plain file is mapped: one that shrinks during the merge (truncated by a log rotation) must
// not kill the command but end that input with an error, after which the others go on.
func TestShrunkMappedFileIsReportedAndOthersGoOn(t *testing.T) {
	dir := t.TempDir()
	var lines strings.Builder
	for i := range 5000 { // many pages
		fmt.Fprintf(&lines, "s [10/Oct/2026:14:%02d:%02d +0000] line %d\n", i/60%60, i%60, i)
	}
	shrinking := testkit.WriteFile(t, filepath.Join(dir, "shrinking.log"), []byte(lines.String()))
	good := testkit.WriteFile(t, filepath.Join(dir, "good.log"), []byte("g [10/Oct/2026:13:00:00 +0000] first\ng [10/Oct/2026:15:00:00 +0000] last\n"))
	cfg, err := newEntryConfig(options{format: "clf"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var inputs []*input
	var sources []merge.Source
	for _, name := range []string{shrinking, good} {
		in, err := openInput(name, nil, cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := in.Close(); err != nil {
				t.Error(err)
			}
		})
		if in.mapped == nil {
			t.Skip("files are not mapped on this platform")
		}
		inputs, sources = append(inputs, in), append(sources, in)
	}
	m := merge.New(sources)
	var out, errs bytes.Buffer
	w := bufio.NewWriter(&out)
	// Merge the first lines of both, then cut the file under the mapping.
	for range 3 {
		entry, _, err := m.Next()
		if err != nil {
			t.Fatal(err)
		}
		// A bufio.Writer's error is sticky: the Flush below reports it.
		_, _ = w.Write(entry)
		_ = w.WriteByte('\n')
	}
	if err := os.Truncate(shrinking, 0); err != nil {
		t.Fatal(err)
	}
	failed, err := writeMerged(m, w, inputs, nil, &errs)
	if ferr := w.Flush(); ferr != nil {
		t.Fatal(ferr)
	}
	if !failed || err != nil {
		t.Fatalf("failed %v, err %v", failed, err)
	}
	if !strings.Contains(errs.String(), "shrinking.log: the file shrank while being read") {
		t.Fatalf("stderr does not name the input: %q", errs.String())
	}
	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if got[0] != "g [10/Oct/2026:13:00:00 +0000] first" || got[len(got)-1] != "g [10/Oct/2026:15:00:00 +0000] last" {
		t.Fatalf("the other input is not all there: %q", got)
	}
}
