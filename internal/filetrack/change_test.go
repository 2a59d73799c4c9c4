package filetrack

import (
	"os"
	"testing"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

func TestRotateCopyTruncate(t *testing.T) {
	for _, early := range []bool{false, true} {
		name := "copy and truncate between polls"
		if early {
			name = "copy seen before the truncation"
		}
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, Options{StartAtBeginning: true})
			p, c := h.path("app.log"), h.path("app.log.1")
			testkit.WriteFile(t, p, text(lines("one", 0, 100)))
			h.round()
			testkit.AppendFile(t, p, text(lines("one", 100, 110))) // written after our read, before the copy
			testkit.WriteFile(t, c, readFile(t, p))
			if early {
				h.round() // sees the copy while the original is intact: a shadow
				testkit.AppendFile(t, p, text(lines("one", 110, 115)))
				testkit.WriteFile(t, c, readFile(t, p)) // the copy is taken again, fuller
			}
			must(t, os.Truncate(p, 0))
			testkit.AppendFile(t, p, text(lines("two", 0, 5)))
			h.rounds(3)
			want := lines("one", 0, 110)
			if early {
				want = lines("one", 0, 115)
			}
			h.expect(want, lines("two", 0, 5))
			if one := h.ids("one"); len(one) != 1 {
				t.Fatalf("the copy was read as another identity: %v", one)
			}
			if st := h.tr.Stats(); st.Truncations != 1 {
				t.Fatalf("stats %+v", st)
			}
		})
	}
}

// The truncated file starts with the same bytes as before: still a new file,
// read from 0, and the copy still continues the old one.
func TestCopyTruncateSameHeader(t *testing.T) {
	copyTruncateSameHeader(t, "# header line that every file of this app starts with, long", 5)
}

// Truncated and refilled past the old offset before the next poll, with the
// same first bytes: the check point tells.
func TestTruncatedAndRefilled(t *testing.T) {
	copyTruncateSameHeader(t, "# header line that every file of this app starts with", 100)
}

// copyTruncateSameHeader copies and truncates a file whose lines follow a
// header longer than the fingerprint, then refills it with the same header
// and refill lines.
func copyTruncateSameHeader(t *testing.T, headerLine string, refill int) {
	t.Helper()
	h := newHarness(t, Options{StartAtBeginning: true, FingerprintSize: 32})
	p, c := h.path("app.log"), h.path("app.log.1")
	header := text([]string{headerLine})
	testkit.WriteFile(t, p, append(header, text(lines("one", 0, 50))...))
	h.round()
	testkit.AppendFile(t, p, text(lines("one", 50, 60)))
	testkit.WriteFile(t, c, readFile(t, p))
	testkit.WriteFile(t, p, append(header, text(lines("two", 0, refill))...))
	h.rounds(3)
	h.expect([]string{headerLine, headerLine}, lines("one", 0, 60), lines("two", 0, refill))
}

func TestTruncated(t *testing.T) {
	h := newHarness(t, Options{StartAtBeginning: true})
	p := h.path("app.log")
	testkit.WriteFile(t, p, text(lines("one", 0, 100)))
	h.round()
	must(t, os.Truncate(p, 0))
	testkit.AppendFile(t, p, text(lines("two", 0, 10)))
	h.rounds(2)
	h.expect(lines("one", 0, 100), lines("two", 0, 10))
	if st := h.tr.Stats(); st.Truncations != 1 {
		t.Fatalf("stats %+v", st)
	}
}

// Same inode, other content: rewritten in place while it was closed, or an
// inode reused.
func TestRewrittenInPlace(t *testing.T) {
	t.Run("while tracked", func(t *testing.T) {
		h := newHarness(t, Options{StartAtBeginning: true})
		p := h.path("app.log")
		testkit.WriteFile(t, p, text(lines("one", 0, 10)))
		h.round()
		testkit.WriteFile(t, p, text(lines("two", 0, 40))) // O_TRUNC then longer: same inode
		h.rounds(2)
		h.expect(lines("one", 0, 10), lines("two", 0, 40))
	})
	t.Run("across restart", func(t *testing.T) {
		h := newHarness(t, Options{StartAtBeginning: true})
		p := h.path("app.log")
		testkit.WriteFile(t, p, text(lines("one", 0, 10)))
		h.round()
		cp := h.tr.Checkpoint()
		testkit.WriteFile(t, p, text(lines("two", 0, 40)))
		h.start(Options{StartAtBeginning: true})
		must(t, h.tr.Restore(cp))
		h.rounds(2)
		h.expect(lines("two", 0, 40))
	})
}

// While no poll ran (the caller held back by backpressure), the file was copytruncated,
// refilled past what was read, rotated away and compressed, and its copy compressed too. The
// descriptor still open holds the new stream, not the rest of the old one: the old stream goes
// on in its copy, the new one is read from its own, nothing lost, nothing twice.
func TestCopyTruncatedThenRotatedAwayUnpolled(t *testing.T) {
	h := newHarness(t, Options{StartAtBeginning: true})
	p := h.path("app.log")
	testkit.WriteFile(t, p, text(lines("one", 0, 100)))
	h.round()
	testkit.AppendFile(t, p, text(lines("one", 100, 150)))
	testkit.WriteFile(t, p+".1", readFile(t, p)) // copytruncate
	must(t, os.Truncate(p, 0))
	testkit.AppendFile(t, p, text(lines("two", 0, 300)))
	must(t, os.Rename(p, p+".2"))
	compress(t, p+".1", ".gz", testkit.Gzip)
	compress(t, p+".2", ".gz", testkit.Gzip)
	h.rounds(3)
	h.expect(lines("one", 0, 150), lines("two", 0, 300))
}

// A compressed file written in many small steps (a .gz still being written, flushed as it
// goes) is not decoded again from its start at every step: only once it doubled, or once its
// growth paused, so that what is decoded twice stays within about its size (issue 12 item 7).
func TestGrowingCompressedFileIsNotDecodedOverAndOver(t *testing.T) {
	h := newHarness(t, Options{StartAtBeginning: true})
	want := lines("gz", 0, 20000)
	full := testkit.Compress(t, testkit.Gzip, text(want))
	p := h.path("app.log.gz")
	const steps = 200
	written := len(full) / steps
	testkit.WriteFile(t, p, full[:written])
	for step := range steps {
		next := len(full) * (step + 2) / steps
		if next > written {
			testkit.AppendFile(t, p, full[written:next])
			written = next
		}
		h.round()
	}
	h.rounds(settlePolls + 2) // the end: growth paused, decoded once more
	h.expect(want)
	size := int64(len(text(want)))
	again := h.tr.Stats().DecodedAgain
	t.Logf("%d bytes decompressed, written in %d steps: %d decoded again (%.2fx)", size, steps, again, float64(again)/float64(size))
	if again > 2*size {
		t.Fatalf("decoded %d bytes again for a file of %d: more than twice its size", again, size)
	}
}
