//go:build unix

package filetrack

import (
	"os"
	"testing"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

// Files deleted while open are read to their end from their descriptors, but not beyond
// MaxDeletedBytes of them at once: the ones seen last the longest ago are closed, and what
// they had unread is counted and logged.
func TestDeletedFilesBoundedByBytes(t *testing.T) {
	h := newHarness(t, Options{StartAtBeginning: true})
	paths := []string{h.path("a.log"), h.path("b.log"), h.path("c.log")}
	for i, p := range paths {
		tag := string(rune('a' + i))
		testkit.WriteFile(t, p, text(lines(tag, 0, 100)))
	}
	size := int64(len(text(lines("a", 0, 100))))
	h.start(Options{StartAtBeginning: true, MaxDeletedBytes: 2*size + size/2})
	h.tr.PollHolding() // all three open, none read
	must(t, os.Remove(paths[0]))
	h.tr.PollHolding()
	must(t, os.Remove(paths[1]))
	must(t, os.Remove(paths[2]))
	h.rounds(3)
	// a was seen last the longest ago: closed, all of it lost; b and c are read to their end.
	h.expect(lines("b", 0, 100), lines("c", 0, 100))
	if got := h.tr.Stats().BytesLost; got != size {
		t.Errorf("BytesLost %d, want %d (all of a)", got, size)
	}
	if n := h.warnings("closing a deleted file"); n != 1 {
		t.Errorf("%d warnings of a deleted file closed, want 1", n)
	}
	if n := openFDs(t, h.dir); n != 0 {
		t.Errorf("%d descriptors open after the deleted files were read", n)
	}
}

// A file that went away before it was read to its end, with no descriptor to read the rest
// from, is counted lost when its identity is forgotten: PollHolding kept the one descriptor on
// a, so b was never opened.
func TestUnreadFileGoneIsCounted(t *testing.T) {
	h := newHarness(t, Options{StartAtBeginning: true, MaxConcurrentFiles: 1})
	a, b := h.path("a.log"), h.path("b.log")
	testkit.WriteFile(t, a, text(lines("a", 0, 10)))
	files := h.tr.PollHolding()
	if len(files) != 1 || files[0].Path() != a {
		t.Fatalf("first poll handed out %d files, want a", len(files))
	}
	testkit.WriteFile(t, b, text(lines("b", 0, 10)))
	for range 3 {
		if files := h.tr.PollHolding(); len(files) != 1 || files[0].Path() != a {
			t.Fatalf("holding polls must keep a's descriptor, got %d files", len(files))
		}
	}
	must(t, os.Remove(b))
	for range forgetPolls + 1 {
		h.tr.PollHolding()
	}
	bSize := int64(len(text(lines("b", 0, 10))))
	if got := h.tr.Stats().BytesLost; got != bSize {
		t.Errorf("BytesLost %d, want %d (all of b)", got, bSize)
	}
	if n := h.warnings("went away before it was read to its end"); n != 1 {
		t.Errorf("%d warnings of a file gone unread, want 1", n)
	}
	h.rounds(2)
	h.expect(lines("a", 0, 10))
	if got := h.tr.Stats().BytesLost; got != bSize {
		t.Errorf("BytesLost %d after reading a, want still %d", got, bSize)
	}
}

// Files read to their end and then deleted lose nothing.
func TestReadFileGoneLosesNothing(t *testing.T) {
	h := newHarness(t, Options{StartAtBeginning: true, MaxDeletedBytes: 1})
	a := h.path("a.log")
	testkit.WriteFile(t, a, text(lines("a", 0, 10)))
	h.rounds(2)
	must(t, os.Remove(a))
	h.rounds(forgetPolls + 2)
	h.expect(lines("a", 0, 10))
	if got := h.tr.Stats().BytesLost; got != 0 {
		t.Errorf("BytesLost %d, want 0", got)
	}
}

// A file of the last run, read further than committed when it stopped, and deleted while the
// collector was down (kubelet rotating through its files): what was read and not delivered is
// counted lost, and said, when its identity is forgotten. It went silently.
func TestLastRunFileGoneIsCounted(t *testing.T) {
	h := newHarness(t, Options{StartAtBeginning: true})
	h.commit = false
	a := h.path("0.log.20261202-000001")
	testkit.WriteFile(t, a, text(lines("a", 0, 100)))
	h.rounds(2)
	half := int64(len(text(lines("a", 0, 50))))
	h.tr.Commit(h.ids("a")[0], half, 50)
	cp := h.tr.Checkpoint()

	h.start(Options{StartAtBeginning: true})
	must(t, h.tr.Restore(cp))
	must(t, os.Remove(a))
	h.rounds(forgetPolls + 2)
	want := int64(len(text(lines("a", 0, 100)))) - half
	if got := h.tr.Stats().BytesLost; got != want {
		t.Errorf("BytesLost %d, want %d (read and not delivered)", got, want)
	}
	if n := h.warnings("went away while the collector was down"); n != 1 {
		t.Errorf("%d warnings, want 1", n)
	}
}
