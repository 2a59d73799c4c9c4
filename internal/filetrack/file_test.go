package filetrack

import (
	"errors"
	"io"
	"slices"
	"testing"

	"github.com/mergelog/otelcol-mergelog/internal/decompress"
	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

func TestReadAndTail(t *testing.T) {
	h := newHarness(t, Options{StartAtBeginning: true})
	p := h.path("app.log")
	testkit.WriteFile(t, p, text(lines("a", 0, 50)))
	files := h.round()
	if len(files) != 1 {
		t.Fatalf("Poll returned %d files, want 1", len(files))
	}
	f := files[0]
	if f.Path() != p || f.Name() != "app.log" || f.Kind() != decompress.Plain || f.Finished() {
		t.Fatalf("file: path %q name %q kind %v finished %v", f.Path(), f.Name(), f.Kind(), f.Finished())
	}
	h.expect(lines("a", 0, 50))

	// A line being written stays partial until its newline comes.
	testkit.AppendFile(t, p, []byte("a 000050 half"))
	h.round()
	h.expect(lines("a", 0, 50))
	if tail, end := f.Partial(); string(tail) != "a 000050 half" || end != int64(len(text(lines("a", 0, 50))))+13 {
		t.Fatalf("Partial = %q, %d", tail, end)
	}
	testkit.AppendFile(t, p, []byte(" done\n"))
	h.round()
	h.expect(lines("a", 0, 50), []string{"a 000050 half done"})

	// An unchanged file is not handed out.
	if files := h.round(); len(files) != 0 {
		t.Fatalf("idle poll returned %d files", len(files))
	}
	if st := h.tr.Stats(); st.FilesDiscovered != 1 || st.BytesRead != int64(len(readFile(t, p))) {
		t.Fatalf("stats %+v, file has %d bytes", st, len(readFile(t, p)))
	}
}

func TestConsumePartial(t *testing.T) {
	h := newHarness(t, Options{StartAtBeginning: true})
	p := h.path("app.log")
	testkit.WriteFile(t, p, []byte("one\ntwo"))
	f := h.round()[0]
	tail, end := f.Partial()
	if string(tail) != "two" || end != 7 {
		t.Fatalf("Partial = %q, %d", tail, end)
	}
	// The caller force-flushes "two": the rest of that line is a new line.
	h.lines[f.ID()] = append(h.lines[f.ID()], string(tail))
	f.ConsumePartial()
	h.tr.Commit(f.ID(), end, 0)
	testkit.AppendFile(t, p, []byte("-more\nthree\n"))
	h.round()
	h.expect([]string{"one", "two", "-more", "three"})
}

func TestMaxLineSize(t *testing.T) {
	h := newHarness(t, Options{StartAtBeginning: true, MaxLineSize: 10})
	testkit.WriteFile(t, h.path("long.log"), []byte("0123456789abcdefghij-tail\nshort\n"))
	f := h.tr.Poll()[0]
	var pieces []string
	var splits []bool
	for {
		line, _, err := f.Next()
		if err != nil {
			break
		}
		pieces = append(pieces, string(line))
		splits = append(splits, f.Split())
	}
	if !slices.Equal(pieces, []string{"0123456789", "abcdefghij", "-tail", "short"}) ||
		!slices.Equal(splits, []bool{true, true, false, false}) {
		t.Fatalf("pieces %q splits %v", pieces, splits)
	}
}

// A compressed file still being written stops without error and is read on
// once complete; one that stays cut short is an error, reported once.
func TestCompressedCutShort(t *testing.T) {
	h := newHarness(t, Options{StartAtBeginning: true})
	z := h.path("app.log.gz")
	packed := testkit.Compress(t, testkit.Gzip, text(lines("z", 0, 2000)))
	testkit.WriteFile(t, z, packed[:len(packed)/2])
	h.rounds(2)
	if len(h.errs) != 0 {
		t.Fatalf("errors while the file is being written: %v", h.errs)
	}
	testkit.WriteFile(t, z, packed)
	h.rounds(2)
	h.expect(lines("z", 0, 2000))

	cut := h.path("cut.log.gz")
	packed = testkit.Compress(t, testkit.Gzip, text(lines("c", 0, 2000)))
	testkit.WriteFile(t, cut, packed[:len(packed)/2])
	h.rounds(settlePolls + 3)
	var errs []error
	for _, e := range h.errs {
		errs = append(errs, e...)
	}
	if len(errs) != 1 || !errors.Is(errs[0], io.ErrUnexpectedEOF) {
		t.Fatalf("errors %v, want one truncation", errs)
	}
	if st := h.tr.Stats(); st.ReadErrors != 1 {
		t.Fatalf("stats %+v", st)
	}
}

func TestCorruptCompressed(t *testing.T) {
	h := newHarness(t, Options{StartAtBeginning: true})
	packed := testkit.Compress(t, testkit.Gzip, text(lines("z", 0, 3000)))
	for i := len(packed) / 2; i < len(packed)/2+64; i++ {
		packed[i] ^= 0x55
	}
	testkit.WriteFile(t, h.path("bad.log.gz"), packed)
	testkit.WriteFile(t, h.path("good.log"), text(lines("g", 0, 10)))
	h.rounds(3)
	var errs []error
	for _, e := range h.errs {
		errs = append(errs, e...)
	}
	var de *decompress.Error
	if len(errs) != 1 || !errors.As(errs[0], &de) {
		t.Fatalf("errors %v, want one decompression error", errs)
	}
	if g := h.ids("g"); len(g) != 1 || len(h.lines[g[0]]) != 10 {
		t.Fatalf("the good file was not read alongside: %v", h.lines)
	}
}
