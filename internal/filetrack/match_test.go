package filetrack

import (
	"os"
	"strings"
	"testing"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

func TestStartAtEnd(t *testing.T) {
	h := newHarness(t, Options{})
	old := h.path("old.log")
	testkit.WriteFile(t, old, append(text(lines("old", 0, 40)), "old 000040 being wri"...))
	gz := h.path("old.log.1.gz")
	testkit.WriteFile(t, gz, testkit.Compress(t, testkit.Gzip, text(lines("gz", 0, 40))))
	h.round()
	h.expect() // nothing existing is read, and the partial line waits
	testkit.AppendFile(t, old, []byte("tten\n"))
	later := h.path("later.log")
	testkit.WriteFile(t, later, text(lines("later", 0, 5))) // found after the first poll: from 0
	h.round()
	h.expect([]string{"old 000040 being written"}, lines("later", 0, 5))
}

func TestFingerprintCollision(t *testing.T) {
	header := text(lines("HEADER", 0, 30)) // 1.5 KiB shared by all files
	t.Run("same poll", func(t *testing.T) {
		h := newHarness(t, Options{StartAtBeginning: true})
		testkit.WriteFile(t, h.path("a.log"), append(header, text(lines("a", 0, 20))...))
		testkit.WriteFile(t, h.path("b.log"), append(header, text(lines("b", 0, 30))...))
		testkit.WriteFile(t, h.path("c.log"), append(header, text(lines("c", 0, 10))...))
		h.round() // compared with each other directly: no wait for check points
		h.expect(lines("HEADER", 0, 30), lines("HEADER", 0, 30), lines("HEADER", 0, 30),
			lines("a", 0, 20), lines("b", 0, 30), lines("c", 0, 10))
	})
	t.Run("later", func(t *testing.T) {
		h := newHarness(t, Options{StartAtBeginning: true})
		testkit.WriteFile(t, h.path("a.log"), append(header, text(lines("a", 0, 20))...))
		h.round()
		testkit.WriteFile(t, h.path("b.log"), append(header, text(lines("b", 0, 30))...))
		testkit.WriteFile(t, h.path("c.log"), append(header, text(lines("c", 0, 10))...)) // shorter than a's offset
		h.rounds(5)
		h.expect(lines("HEADER", 0, 30), lines("HEADER", 0, 30), lines("HEADER", 0, 30),
			lines("a", 0, 20), lines("b", 0, 30), lines("c", 0, 10))
	})
	t.Run("after restart", func(t *testing.T) {
		h := newHarness(t, Options{StartAtBeginning: true})
		a := h.path("a.log")
		testkit.WriteFile(t, a, append(header, text(lines("a", 0, 20))...))
		h.round()
		cp := h.tr.Checkpoint()
		must(t, os.Remove(a))
		testkit.WriteFile(t, h.path("b.log"), append(header, text(lines("b", 0, 30))...))
		h.start(Options{StartAtBeginning: true})
		must(t, h.tr.Restore(cp))
		h.rounds(2)
		h.expect(lines("HEADER", 0, 30), lines("b", 0, 30))
	})
	for _, z := range compressors[:2] {
		t.Run("compressed "+z.ext, func(t *testing.T) {
			h := newHarness(t, Options{StartAtBeginning: true})
			testkit.WriteFile(t, h.path("a.log"+z.ext), testkit.Compress(t, z.format, append(header, text(lines("a", 0, 20))...)))
			testkit.WriteFile(t, h.path("b.log"+z.ext), testkit.Compress(t, z.format, append(header, text(lines("b", 0, 30))...)))
			h.rounds(3)
			h.expect(lines("HEADER", 0, 30), lines("HEADER", 0, 30), lines("a", 0, 20), lines("b", 0, 30))
		})
	}
}

// A copy still being written is shorter than what was read: it waits, and
// continues the identity once it is complete. One that stays shorter than
// every check point is taken for a different file after a few polls.
func TestCopyBeingWritten(t *testing.T) {
	setup := func(t *testing.T) (*harness, []byte) {
		h := newHarness(t, Options{StartAtBeginning: true})
		p := h.path("app.log")
		testkit.WriteFile(t, p, text(lines("one", 0, 100)))
		h.round()
		testkit.AppendFile(t, p, text(lines("one", 100, 110)))
		full := readFile(t, p)
		must(t, os.Truncate(p, 0))
		return h, full
	}
	t.Run("completed", func(t *testing.T) {
		h, full := setup(t)
		c := h.path("app.log.1")
		testkit.WriteFile(t, c, full[:len(full)/2])
		h.rounds(2)
		h.expect(lines("one", 0, 100))
		testkit.WriteFile(t, c, full)
		h.rounds(2)
		h.expect(lines("one", 0, 110))
	})
	t.Run("never completed", func(t *testing.T) {
		h, full := setup(t)
		testkit.WriteFile(t, h.path("other.log"), full[:2000])
		h.rounds(settlePolls)
		h.expect(lines("one", 0, 100))
		h.round()
		prefix := strings.Split(string(full[:2000]), "\n")
		h.expect(lines("one", 0, 100), prefix[:len(prefix)-1]) // its last line is partial
	})
}

func TestRotateToCompressed(t *testing.T) {
	for _, z := range compressors {
		t.Run(z.ext, func(t *testing.T) {
			h := newHarness(t, Options{StartAtBeginning: true})
			p, r := h.path("app.log"), h.path("app.log.1")
			testkit.WriteFile(t, p, text(lines("one", 0, 200)))
			h.round()
			testkit.AppendFile(t, p, text(lines("one", 200, 230)))
			must(t, os.Rename(p, r))
			testkit.WriteFile(t, p, text(lines("two", 0, 5)))
			h.round()
			compress(t, r, z.ext, z.format)
			h.rounds(4)
			h.expect(lines("one", 0, 230), lines("two", 0, 5))
			if one := h.ids("one"); len(one) != 1 {
				t.Fatalf("compressed copy read again as %v", one)
			}
		})
	}
}

// A deleted file's inode given to a new file, across a restart.
func TestInodeReused(t *testing.T) {
	h := newHarness(t, Options{StartAtBeginning: true})
	a := h.path("a.log")
	testkit.WriteFile(t, a, text(lines("a", 0, 10)))
	h.round()
	cp := h.tr.Checkpoint()
	h.start(Options{StartAtBeginning: true})
	before, err := os.Stat(a)
	must(t, err)
	keyBefore, err := keyOf(a, before)
	must(t, err)
	must(t, os.Remove(a))
	b := h.path("b.log")
	testkit.WriteFile(t, b, text(lines("b", 0, 30)))
	after, err := os.Stat(b)
	must(t, err)
	keyAfter, err := keyOf(b, after)
	must(t, err)
	if keyBefore != keyAfter {
		t.Log("the file system did not reuse the inode: the fingerprint decides alone")
	}
	must(t, h.tr.Restore(cp))
	h.round()
	h.expect(lines("b", 0, 30))
}

func TestCorruptHeader(t *testing.T) {
	h := newHarness(t, Options{StartAtBeginning: true})
	testkit.WriteFile(t, h.path("bad.log.gz"), []byte("\x1f\x8bthis is no gzip header at all"))
	testkit.WriteFile(t, h.path("good.log"), text(lines("g", 0, 3)))
	h.rounds(3)
	h.expect(lines("g", 0, 3))
	if n := h.warnings("corrupt"); n != 1 {
		t.Fatalf("corrupt file reported %d times, want once", n)
	}
}
