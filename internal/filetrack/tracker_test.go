package filetrack

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mergelog/otelcol-mergelog/internal/decompress"
	"github.com/mergelog/otelcol-mergelog/internal/filetrack/checkpoint"
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

func TestEmptyFileNotTracked(t *testing.T) {
	h := newHarness(t, Options{StartAtBeginning: true})
	p := h.path("empty.log")
	testkit.WriteFile(t, p, "")
	if files := h.round(); len(files) != 0 || h.tr.Stats().FilesTracked != 0 {
		t.Fatalf("empty file tracked: %d files", len(files))
	}
	testkit.AppendFile(t, p, text(lines("e", 0, 3)))
	h.round()
	h.expect(lines("e", 0, 3))
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

func TestExclude(t *testing.T) {
	h := newHarness(t, Options{StartAtBeginning: true, ExcludeOlderThan: time.Hour})
	h.start(Options{
		Include:          []string{filepath.Join(h.dir, "*.log")},
		Exclude:          []string{filepath.Join(h.dir, "skip*")},
		StartAtBeginning: true, ExcludeOlderThan: time.Hour,
	})
	testkit.WriteFile(t, h.path("a.log"), text(lines("a", 0, 3)))
	testkit.WriteFile(t, h.path("skip.log"), text(lines("skip", 0, 3)))
	testkit.WriteFile(t, h.path("a.txt"), text(lines("txt", 0, 3)))
	stale := h.path("stale.log")
	testkit.WriteFile(t, stale, text(lines("stale", 0, 3)))
	must(t, os.Chtimes(stale, time.Now().Add(-2*time.Hour), time.Now().Add(-2*time.Hour)))
	h.round()
	h.expect(lines("a", 0, 3))
}

func TestRotateMoveCreate(t *testing.T) {
	for _, within := range []bool{true, false} {
		name := "out of the globs"
		if within {
			name = "within the globs"
		}
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, Options{StartAtBeginning: true})
			h.start(Options{Include: []string{filepath.Join(h.dir, "app.log*")}, StartAtBeginning: true})
			p := h.path("app.log")
			testkit.WriteFile(t, p, text(lines("one", 0, 100)))
			h.round()
			testkit.AppendFile(t, p, text(lines("one", 100, 120))) // not read before the rotation
			rotated := h.path("app.log.1")
			if !within {
				rotated = h.path("old-app.log.1")
			}
			must(t, os.Rename(p, rotated))
			testkit.WriteFile(t, p, text(lines("two", 0, 10)))
			files := h.round()
			h.expect(lines("one", 0, 120), lines("two", 0, 10))
			one, two := h.ids("one"), h.ids("two")
			if len(one) != 1 || len(two) != 1 || one[0] == two[0] {
				t.Fatalf("identities: one %v two %v", one, two)
			}
			for _, f := range files {
				if f.ID() == one[0] && within && f.Path() != rotated {
					t.Fatalf("moved file path %q, want %q", f.Path(), rotated)
				}
			}
			h.rounds(2)
			var moved *File
			for _, f := range h.tr.files {
				if f.ID() == one[0] {
					moved = f
				}
			}
			if !within && (moved == nil || !moved.Finished() || moved.fd != nil) {
				t.Fatalf("file rotated out of the globs not finished and closed: %+v", moved)
			}
			h.expect(lines("one", 0, 120), lines("two", 0, 10))
		})
	}
}

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
	h := newHarness(t, Options{StartAtBeginning: true, FingerprintSize: 32})
	p, c := h.path("app.log"), h.path("app.log.1")
	header := text([]string{"# header line that every file of this app starts with, long"})
	testkit.WriteFile(t, p, append(header, text(lines("one", 0, 50))...))
	h.round()
	testkit.AppendFile(t, p, text(lines("one", 50, 60)))
	testkit.WriteFile(t, c, readFile(t, p))
	testkit.WriteFile(t, p, append(header, text(lines("two", 0, 5))...))
	h.rounds(3)
	h.expect([]string{string(header[:len(header)-1]), string(header[:len(header)-1])},
		lines("one", 0, 60), lines("two", 0, 5))
}

// Truncated and refilled past the old offset before the next poll, with the
// same first bytes: the check point tells.
func TestTruncatedAndRefilled(t *testing.T) {
	h := newHarness(t, Options{StartAtBeginning: true, FingerprintSize: 32})
	p, c := h.path("app.log"), h.path("app.log.1")
	header := text([]string{"# header line that every file of this app starts with"})
	testkit.WriteFile(t, p, append(header, text(lines("one", 0, 50))...))
	h.round()
	testkit.AppendFile(t, p, text(lines("one", 50, 60)))
	testkit.WriteFile(t, c, readFile(t, p))
	testkit.WriteFile(t, p, append(header, text(lines("two", 0, 100))...))
	h.rounds(3)
	h.expect([]string{string(header[:len(header)-1]), string(header[:len(header)-1])},
		lines("one", 0, 60), lines("two", 0, 100))
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

// After a restart the compressed file resumes at the committed offset, in
// decompressed bytes.
func TestRotateToCompressedAcrossRestart(t *testing.T) {
	for _, z := range compressors {
		t.Run(z.ext, func(t *testing.T) {
			h := newHarness(t, Options{StartAtBeginning: true})
			p := h.path("app.log")
			testkit.WriteFile(t, p, text(lines("one", 0, 100)))
			h.round()
			// Half of what was read is committed, then the collector stops.
			f := h.tr.files[h.ids("one")[0]]
			half := int64(len(text(lines("one", 0, 50))))
			h.tr.files[f.id].committed = half
			cp := h.tr.Checkpoint()

			testkit.AppendFile(t, p, text(lines("one", 100, 120)))
			must(t, os.Rename(p, p+".1"))
			compress(t, p+".1", z.ext, z.format)
			testkit.WriteFile(t, p, text(lines("two", 0, 5)))

			h.start(Options{StartAtBeginning: true})
			must(t, h.tr.Restore(cp))
			h.rounds(2)
			h.expect(lines("one", 50, 120), lines("two", 0, 5))
			if one := h.ids("one"); len(one) != 1 || one[0] != f.id {
				t.Fatalf("identity after restart %v, want [%d]", one, f.id)
			}
		})
	}
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

func TestDeletedWhileOpen(t *testing.T) {
	h := newHarness(t, Options{StartAtBeginning: true})
	p := h.path("app.log")
	testkit.WriteFile(t, p, text(lines("one", 0, 10)))
	f := h.round()[0]
	testkit.AppendFile(t, p, text(lines("one", 10, 30)))
	must(t, os.Remove(p))
	if files := h.round(); len(files) != 1 || files[0] != f || f.Finished() {
		t.Fatalf("deleted file not drained: %v", files)
	}
	h.expect(lines("one", 0, 30))
	if files := h.round(); len(files) != 1 || !f.Finished() {
		t.Fatalf("drained file not reported finished: %v finished %v", files, f.Finished())
	}
	if files := h.round(); len(files) != 0 || h.tr.Stats().FilesOpen != 0 {
		t.Fatalf("finished file still handed out or open: %d, %+v", len(files), h.tr.Stats())
	}
}

// A file moved out of the globs is read to its end and finished; moved back (or linked back)
// later, it is read on from there: nothing twice, nothing lost.
func TestMovedAwayAndBack(t *testing.T) {
	for _, back := range []string{"rename", "symlink"} {
		t.Run(back, func(t *testing.T) {
			h := newHarness(t, Options{StartAtBeginning: true})
			p := h.path("app.log")
			testkit.WriteFile(t, p, text(lines("one", 0, 10)))
			f := h.round()[0]
			away := filepath.Join(t.TempDir(), "app.log")
			must(t, os.Rename(p, away))
			h.rounds(3)
			if !f.Finished() {
				t.Fatal("a file moved away was not finished once read to its end")
			}
			testkit.AppendFile(t, away, text(lines("one", 10, 20)))
			if back == "rename" {
				must(t, os.Rename(away, p))
			} else {
				must(t, os.Symlink(away, p))
			}
			h.rounds(2)
			h.expect(lines("one", 0, 20))
			if f.Finished() {
				t.Fatal("the file is back but still finished")
			}
		})
	}
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

func TestPermissionDenied(t *testing.T) {
	h := newHarness(t, Options{StartAtBeginning: true})
	p := h.path("secret.log")
	testkit.WriteFile(t, p, text(lines("secret", 0, 5)))
	testkit.WriteFile(t, h.path("open.log"), text(lines("open", 0, 5)))
	must(t, os.Chmod(p, 0))
	if os.Geteuid() == 0 {
		// root reads anyway: deny it the way the kernel would.
		h.tr.open = func(name string) (*os.File, error) {
			if fi, err := os.Stat(name); err == nil && fi.Mode().Perm() == 0 {
				return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
			}
			return os.Open(name)
		}
	}
	h.rounds(3)
	h.expect(lines("open", 0, 5))
	if n := h.warnings("permission denied"); n != 1 {
		t.Fatalf("permission denied reported %d times, want once", n)
	}
	must(t, os.Chmod(p, 0o644))
	h.round()
	h.expect(lines("open", 0, 5), lines("secret", 0, 5))
}

func TestVanishedAndDirectory(t *testing.T) {
	h := newHarness(t, Options{StartAtBeginning: true})
	target := filepath.Join(t.TempDir(), "target.log")
	must(t, os.Symlink(target, h.path("dangling.log"))) // matched, but its file is gone
	must(t, os.Mkdir(h.path("dir.log"), 0o755))
	testkit.WriteFile(t, h.path("ok.log"), text(lines("ok", 0, 3)))
	h.rounds(3)
	h.expect(lines("ok", 0, 3))
	if v, d := h.warnings("vanished"), h.warnings("directory"); v != 1 || d != 1 {
		t.Fatalf("reported vanished %d times, directory %d times; want once each", v, d)
	}
	testkit.WriteFile(t, target, text(lines("back", 0, 3)))
	h.round()
	h.expect(lines("ok", 0, 3), lines("back", 0, 3))
}

func TestSymlinkReadOnce(t *testing.T) {
	h := newHarness(t, Options{StartAtBeginning: true})
	real := h.path("real.log")
	testkit.WriteFile(t, real, text(lines("r", 0, 5)))
	must(t, os.Symlink(real, h.path("link.log")))
	must(t, os.Link(real, h.path("real2.log")))
	files := h.round()
	h.expect(lines("r", 0, 5))
	if len(files) != 1 || files[0].Path() != h.path("link.log") || files[0].ResolvedPath() != real {
		t.Fatalf("files %d, path %q, resolved %q", len(files), files[0].Path(), files[0].ResolvedPath())
	}
	// Its target outside the globs is read through the link.
	h2 := newHarness(t, Options{StartAtBeginning: true})
	outside := filepath.Join(t.TempDir(), "outside.log")
	testkit.WriteFile(t, outside, text(lines("o", 0, 3)))
	must(t, os.Symlink(outside, h2.path("link.log")))
	f := h2.round()[0]
	h2.expect(lines("o", 0, 3))
	if f.Path() != h2.path("link.log") || f.ResolvedPath() != outside {
		t.Fatalf("path %q resolved %q", f.Path(), f.ResolvedPath())
	}
}

func TestMaxConcurrentFiles(t *testing.T) {
	const n, limit = 12, 3
	h := newHarness(t, Options{StartAtBeginning: true, MaxConcurrentFiles: limit})
	h.tr.open = func(name string) (*os.File, error) {
		if h.tr.fdsOpen >= limit { // Poll holds the lock while it opens
			t.Errorf("opening %s with %d descriptors open", name, h.tr.fdsOpen)
		}
		return os.Open(name)
	}
	var want [][]string
	for i := range n {
		tag := string(rune('a' + i))
		testkit.WriteFile(t, h.path(tag+".log"), text(lines(tag, 0, 10)))
		want = append(want, lines(tag, 0, 10))
	}
	for round := range 3 * n / limit {
		if round%2 == 0 { // the files keep growing while they wait their turn
			for i := range n {
				tag := string(rune('a' + i))
				testkit.AppendFile(t, h.path(tag+".log"), text(lines(tag, 10+round, 11+round)))
				want = append(want, lines(tag, 10+round, 11+round))
			}
		}
		h.round()
		if fds, open := openFDs(t, h.dir), h.tr.Stats().FilesOpen; fds > limit || open > limit {
			t.Fatalf("round %d: %d descriptors open (tracker counts %d), limit %d", round, fds, open, limit)
		}
	}
	h.rounds(n / limit)
	h.expect(want...)
}

func TestCheckpointRoundTrip(t *testing.T) {
	h := newHarness(t, Options{StartAtBeginning: true})
	header := text(lines("HEADER", 0, 30))
	testkit.WriteFile(t, h.path("a.log"), append(header, text(lines("a", 0, 40))...))
	testkit.WriteFile(t, h.path("b.log.gz"), testkit.Compress(t, testkit.Gzip, text(lines("b", 0, 40))))
	h.rounds(2)
	cp := h.tr.Checkpoint()
	tr, err := New(Options{Include: []string{h.path("*")}})
	must(t, err)
	defer tr.Close()
	must(t, tr.Restore(cp))
	if got := tr.Checkpoint(); string(got) != string(cp) {
		t.Fatalf("checkpoint changed by a round trip:\n%x\n%x", cp, got)
	}
	if len(tr.files) != 2 {
		t.Fatalf("restored %d identities, want 2", len(tr.files))
	}
}

// Files resume at their committed offsets, not at what was read.
func TestRestartResumesAtCommitted(t *testing.T) {
	h := newHarness(t, Options{StartAtBeginning: true})
	h.commit = false
	p := h.path("app.log")
	testkit.WriteFile(t, p, text(lines("a", 0, 100)))
	f := h.round()[0]
	h.tr.Commit(f.ID(), int64(len(text(lines("a", 0, 60)))), 60)
	cp := h.tr.Checkpoint()
	testkit.AppendFile(t, p, text(lines("a", 100, 110)))
	h.start(Options{}) // start at the end: restored files still resume
	must(t, h.tr.Restore(cp))
	files := h.round()
	h.expect(lines("a", 60, 110))
	if len(files) != 1 || files[0].Records() != 60 {
		t.Fatalf("restored record count: %d files, want 1 with 60 records", len(files))
	}
}

// Files that appeared while the collector was down are read from their start
// even with start at the end: only the very first run skips what exists.
func TestRestartReadsNewFilesFromStart(t *testing.T) {
	h := newHarness(t, Options{})
	p := h.path("app.log")
	testkit.WriteFile(t, p, text(lines("old", 0, 10)))
	h.round()
	testkit.AppendFile(t, p, text(lines("one", 0, 5)))
	h.round()
	cp := h.tr.Checkpoint()
	testkit.AppendFile(t, p, text(lines("one", 5, 8)))
	must(t, os.Rename(p, p+".1"))
	testkit.WriteFile(t, p, text(lines("two", 0, 4)))
	h.start(Options{})
	must(t, h.tr.Restore(cp))
	h.round()
	h.expect(lines("one", 5, 8), lines("two", 0, 4))
}

func TestRestoreErrors(t *testing.T) {
	tr, err := New(Options{Include: []string{filepath.Join(t.TempDir(), "*")}})
	must(t, err)
	defer tr.Close()
	good := checkpoint.Encode([]checkpoint.Identity{{ID: 1, Committed: 5, Kind: decompress.Plain, FP: []byte("x"), Path: "p"}})
	body := good[: len(good)-4 : len(good)-4]
	for name, b := range map[string][]byte{
		"garbage":         []byte("not a checkpoint at all"),
		"short":           good[:4],
		"truncated":       good[:len(good)-3],
		"bad crc":         append(slices.Clone(body), good[len(good)-4]^1, 0, 0, 0),
		"trailing bytes":  withCRC(append(slices.Clone(body), 0)),
		"unknown version": withCRC([]byte("MLFT\x03\x00")),
		"zero id":         checkpoint.Encode([]checkpoint.Identity{{ID: 0, Kind: decompress.Plain, FP: []byte("x")}}),
		"empty fp":        checkpoint.Encode([]checkpoint.Identity{{ID: 1, Kind: decompress.Plain}}),
		"auto kind":       checkpoint.Encode([]checkpoint.Identity{{ID: 1, Kind: decompress.Auto, FP: []byte("x")}}),
		"duplicate id": checkpoint.Encode([]checkpoint.Identity{{ID: 1, Kind: decompress.Plain, FP: []byte("x")},
			{ID: 1, Kind: decompress.Plain, FP: []byte("y")}}),
	} {
		err := tr.Restore(b)
		if err == nil {
			t.Errorf("%s: Restore succeeded", name)
		}
		if name == "unknown version" && !strings.Contains(fmt.Sprint(err), "version 3") {
			t.Errorf("unknown version: %v", err)
		}
	}
	if len(tr.files) != 0 {
		t.Fatalf("failed restores left %d identities", len(tr.files))
	}
	must(t, tr.Restore(nil))
	must(t, tr.Restore(good))
	tr.Poll()
	if err := tr.Restore(good); err == nil {
		t.Error("Restore after Poll accepted")
	}
}

func withCRC(b []byte) []byte {
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)))
}

func FuzzRestore(f *testing.F) {
	f.Add(checkpoint.Encode(nil))
	f.Add(checkpoint.Encode([]checkpoint.Identity{{ID: 3, Committed: skippedOffset, Kind: decompress.Gzip, FP: []byte("fp"), Path: "/a",
		Dev: 1, Ino: 2, Checks: []checkpoint.Check{{Off: 2000, Sum: 7}, {Off: 4000, Sum: 9}}}}))
	f.Add([]byte("MLFT\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		// As is, and with a valid CRC so that the parser behind it is fuzzed.
		for _, d := range [][]byte{data, withCRC(slices.Clone(data))} {
			tr, err := New(Options{Include: []string{"/nonexistent/*"}})
			if err != nil {
				t.Fatal(err)
			}
			if tr.Restore(d) == nil {
				// What was accepted encodes back to a checkpoint that decodes.
				if _, err := checkpoint.Decode(tr.Checkpoint()); err != nil {
					t.Fatalf("re-encoded checkpoint does not decode: %v", err)
				}
			}
			tr.Close()
		}
	})
}

func TestForget(t *testing.T) {
	h := newHarness(t, Options{StartAtBeginning: true})
	p := h.path("gone.log")
	testkit.WriteFile(t, p, text(lines("g", 0, 5)))
	f := h.round()[0]
	must(t, os.Remove(p))
	finished := 0
	for range forgetPolls + 3 {
		for _, g := range h.round() {
			if g == f && g.Finished() {
				finished++
			}
		}
	}
	if finished != 1 {
		t.Fatalf("finished reported %d times, want once", finished)
	}
	if n := len(h.tr.files); n != 0 {
		t.Fatalf("%d identities kept after their files are gone", n)
	}
	es, err := checkpoint.Decode(h.tr.Checkpoint())
	must(t, err)
	if len(es) != 0 {
		t.Fatalf("checkpoint keeps %d identities", len(es))
	}
}

func TestDeleteAfterRead(t *testing.T) {
	h := newHarness(t, Options{StartAtBeginning: true, DeleteAfterRead: true})
	h.commit = false
	p, z := h.path("plain.log"), h.path("packed.log.gz")
	testkit.WriteFile(t, p, text(lines("p", 0, 5)))
	testkit.WriteFile(t, z, testkit.Compress(t, testkit.Gzip, text(lines("z", 0, 5))))
	h.round()
	h.round()
	for _, path := range []string{p, z} {
		if _, err := os.Stat(path); err != nil {
			t.Fatalf("%s deleted before its data was committed: %v", path, err)
		}
	}
	for id, end := range h.ends {
		h.tr.Commit(id, end, 0)
	}
	h.round()
	for _, path := range []string{p, z} {
		if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("%s not deleted after being read and committed: %v", path, err)
		}
	}
	h.expect(lines("p", 0, 5), lines("z", 0, 5))
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

func TestNewValidates(t *testing.T) {
	for name, o := range map[string]Options{
		"no include":      {},
		"bad glob":        {Include: []string{"[x"}},
		"fingerprint":     {Include: []string{"*"}, FingerprintSize: 8},
		"max files":       {Include: []string{"*"}, MaxConcurrentFiles: -1},
		"negative age":    {Include: []string{"*"}, ExcludeOlderThan: -1},
		"bad compression": {Include: []string{"*"}, Compression: 42},
	} {
		if _, err := New(o); err == nil {
			t.Errorf("%s: New accepted %+v", name, o)
		}
	}
}

// A file closed for want of descriptors and rewritten meanwhile is checked
// by fingerprint when reopened.
func TestReopenVerifies(t *testing.T) {
	h := newHarness(t, Options{StartAtBeginning: true, MaxConcurrentFiles: 1})
	a, b := h.path("a.log"), h.path("b.log")
	testkit.WriteFile(t, a, text(lines("a", 0, 10)))
	testkit.WriteFile(t, b, text(lines("b", 0, 10)))
	h.rounds(2) // one file per round
	h.expect(lines("a", 0, 10), lines("b", 0, 10))
	testkit.AppendFile(t, b, text(lines("b", 10, 12)))
	h.round() // b takes the descriptor from a
	testkit.WriteFile(t, a, text(lines("x", 0, 30)))
	h.rounds(3)
	h.expect(lines("a", 0, 10), lines("b", 0, 12), lines("x", 0, 30))
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

// Commit, Checkpoint and Stats come from other goroutines while files are
// polled and read; run with -race.
func TestConcurrentCommit(t *testing.T) {
	h := newHarness(t, Options{StartAtBeginning: true})
	h.commit = false
	p := h.path("app.log")
	done := make(chan struct{})
	ends := make(chan [2]int64, 1024)
	go func() {
		defer close(done)
		for e := range ends {
			h.tr.Commit(uint64(e[0]), e[1], 0)
			h.tr.Checkpoint()
			h.tr.Stats()
		}
	}()
	for i := range 20 {
		testkit.AppendFile(t, p, text(lines("c", i*50, i*50+50)))
		for _, f := range h.tr.Poll() {
			for {
				_, end, err := f.Next()
				if err != nil {
					break
				}
				ends <- [2]int64{int64(f.ID()), end}
			}
		}
	}
	close(ends)
	<-done
	es, err := checkpoint.Decode(h.tr.Checkpoint())
	must(t, err)
	if len(es) != 1 || es[0].Committed != int64(len(readFile(t, p))) {
		t.Fatalf("checkpoint %+v, want everything committed", es)
	}
}
