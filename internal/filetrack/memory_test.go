package filetrack

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"testing"

	"github.com/mergelog/otelcol-mergelog/internal/decompress"
	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

// idlePerFile is issue 12's bound on what a tracked file may hold between its read rounds.
const idlePerFile = 8 << 10

// readSome reads up to n lines of f into h, then ends the round as the receiver does; it
// reports whether f reached the end of its data.
func (h *harness) readSome(f *File, n int) (eof bool) {
	defer f.Yield()
	for range n {
		line, end, err := f.Next()
		if err != nil {
			if err != io.EOF {
				h.errs[f.ID()] = append(h.errs[f.ID()], err)
			}
			return true
		}
		h.lines[f.ID()] = append(h.lines[f.ID()], string(line))
		h.ends[f.ID()] = end
		h.tr.Commit(f.ID(), end, 0)
	}
	return false
}

// Files left behind by a read round hold no line reader until their next turn, and read on
// where they were: every line once, in order.
func TestBehindFilesLendTheirReader(t *testing.T) {
	const files, perFile = 500, 200
	h := newHarness(t, Options{StartAtBeginning: true})
	var want []string
	for i := range files {
		ls := lines(fmt.Sprintf("f%03d", i), 0, perFile)
		testkit.WriteFile(t, h.path(fmt.Sprintf("f%03d.log", i)), text(ls))
		want = append(want, ls...)
	}
	before := testkit.LiveHeap()
	for f := range slices.Values(h.tr.Poll()) {
		if h.readSome(f, 7) {
			t.Fatalf("%s read to its end in the first round", f.Path())
		}
	}
	grown := int64(testkit.LiveHeap()) - int64(before)
	t.Logf("%d files behind after a round: %d KiB of heap", files, grown>>10)
	if grown > files*idlePerFile {
		t.Errorf("%d files behind hold %d KiB, more than %d KiB each", files, grown>>10, idlePerFile>>10)
	}
	for range 100 {
		done := true
		for _, f := range h.tr.Poll() {
			if !h.readSome(f, 7) {
				done = false
			}
		}
		if done {
			break
		}
	}
	h.expect(want)
	for id, ls := range h.lines {
		if !slices.IsSorted(ls) {
			t.Fatalf("file %d read out of order", id)
		}
	}
	if st := h.tr.Stats(); st.BytesRead != int64(len(testkit.Text(want))) {
		t.Errorf("BytesRead %d, want %d", st.BytesRead, len(testkit.Text(want)))
	}
}

// A file idle with a partial last line keeps that line at its size, not a reader, and goes on
// with it once the line is completed.
func TestIdlePartialLineHoldsNoReader(t *testing.T) {
	const files = 500
	h := newHarness(t, Options{StartAtBeginning: true})
	for i := range files {
		testkit.WriteFile(t, h.path(fmt.Sprintf("f%03d.log", i)), fmt.Sprintf("f%03d one\nf%03d half", i, i))
	}
	before := testkit.LiveHeap()
	got := h.round()
	grown := int64(testkit.LiveHeap()) - int64(before)
	t.Logf("%d idle files with a partial line: %d KiB of heap", files, grown>>10)
	if grown > files*idlePerFile {
		t.Errorf("%d idle files hold %d KiB, more than %d KiB each", files, grown>>10, idlePerFile>>10)
	}
	for _, f := range got {
		if tail, end := f.Partial(); string(tail) != f.Name()[:4]+" half" || end != 18 {
			t.Fatalf("%s: Partial = %q, %d", f.Name(), tail, end)
		}
	}
	var want []string
	for i := range files {
		testkit.AppendFile(t, h.path(fmt.Sprintf("f%03d.log", i)), " done\n")
		want = append(want, fmt.Sprintf("f%03d one", i), fmt.Sprintf("f%03d half done", i))
	}
	h.round()
	h.expect(want)
}

// Reading in rounds takes a check point where each round leaves the file (File.Yield), and at
// its end the one reading straight through takes: every one of them holds the file's bytes
// before it, so a round that leaves a file mid-way reads its rest again without spoiling the
// window.
func TestRoundsKeepCheckPoints(t *testing.T) {
	data := text(lines("a", 0, 3000))
	straight := newHarness(t, Options{StartAtBeginning: true})
	testkit.WriteFile(t, straight.path("a.log"), data)
	straight.round()
	inRounds := newHarness(t, Options{StartAtBeginning: true})
	testkit.WriteFile(t, inRounds.path("a.log"), data)
	for range 1000 {
		files := inRounds.tr.Poll()
		if len(files) == 0 || inRounds.readSome(files[0], 7) {
			break
		}
	}
	a, b := straight.tr.files.byID[straight.ids("a")[0]], inRounds.tr.files.byID[inRounds.ids("a")[0]]
	if len(a.r.checks.list) == 0 || len(b.r.checks.list) < 2 || a.r.checks.list[len(a.r.checks.list)-1] != b.r.checks.list[len(b.r.checks.list)-1] {
		t.Fatalf("check points %v read straight, %v in rounds", a.r.checks.list, b.r.checks.list)
	}
	for _, c := range b.r.checks.list {
		if want := sum(data[c.off-min(c.off, checkWindow) : c.off]); c.sum != want {
			t.Errorf("check point at %d: sum %d, the file's bytes before it %d", c.off, c.sum, want)
		}
	}
	inRounds.expect(lines("a", 0, 3000))
}

// At most MaxConcurrentDecoders compressed files are decoded at once; the others wait for
// their turn and are all read, once.
func TestDecodersBounded(t *testing.T) {
	const files, decoders = 6, 2
	h := newHarness(t, Options{StartAtBeginning: true, MaxConcurrentDecoders: decoders})
	var want []string
	for i := range files {
		ls := lines(fmt.Sprintf("z%d", i), 0, 3000)
		testkit.WriteFile(t, h.path(fmt.Sprintf("z%d.log.gz", i)), testkit.Compress(t, testkit.Gzip, text(ls)))
		want = append(want, ls...)
	}
	most := 0
	for range 1000 {
		for _, f := range h.tr.Poll() {
			h.readSome(f, 500)
			n := 0
			for _, g := range h.tr.files.byID {
				if g.r.dec != nil {
					n++
				}
			}
			most = max(most, n)
		}
		if len(h.all()) == len(want) {
			break
		}
	}
	h.expect(want)
	if most > decoders {
		t.Errorf("%d decoders alive at once, want at most %d", most, decoders)
	}
	if most < decoders {
		t.Errorf("at most %d decoders at once: the files were not read %d at a time", most, decoders)
	}
	for _, f := range h.tr.files.byID {
		if f.Kind() != decompress.Gzip {
			t.Errorf("%s: kind %v", f.Path(), f.Kind())
		}
	}
	runtime.KeepAlive(h)
}
