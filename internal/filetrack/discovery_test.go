package filetrack

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

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

// exclude_older_than applies at every poll, to tracked files too, as file_log's: a tracked file
// left unwritten past the age is let go as one that went away — unlike file_log, what it holds
// is read to its end first, so nothing in it is lost — and its descriptor closed; written
// again, it resumes where it was left.
func TestExcludeOlderThanAppliesToTrackedFiles(t *testing.T) {
	h := newHarness(t, Options{StartAtBeginning: true, ExcludeOlderThan: time.Hour})
	p := h.path("a.log")
	testkit.WriteFile(t, p, text(lines("a", 0, 3)))
	h.rounds(2)
	h.expect(lines("a", 0, 3))

	// Lines appended, then the file's time set back past the age: drained, then let go.
	testkit.AppendFile(t, p, text(lines("a", 3, 5)))
	old := time.Now().Add(-2 * time.Hour)
	must(t, os.Chtimes(p, old, old))
	h.rounds(settlePolls + 2)
	h.expect(lines("a", 0, 5))
	if n := h.tr.Stats().FilesOpen; n != 0 {
		t.Fatalf("%d files open; the old file should have been let go", n)
	}

	// Written again: read on where it was left.
	testkit.AppendFile(t, p, text(lines("a", 5, 6)))
	h.rounds(2)
	h.expect(lines("a", 0, 6))
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

func TestPermissionDenied(t *testing.T) {
	h := newHarness(t, Options{StartAtBeginning: true})
	p := h.path("secret.log")
	testkit.WriteFile(t, p, text(lines("secret", 0, 5)))
	testkit.WriteFile(t, h.path("open.log"), text(lines("open", 0, 5)))
	must(t, os.Chmod(p, 0))
	if os.Geteuid() == 0 {
		// root reads anyway: deny it the way the kernel would.
		h.tr.fds.open = func(name string) (*os.File, error) {
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

// A file rotated away between listing and opening (gone by the time it is opened, and no longer
// listed at the next poll) is not a warning: rotation does that all the time.
func TestVanishedByRotationIsNoWarning(t *testing.T) {
	h := newHarness(t, Options{StartAtBeginning: true})
	p := h.path("app.log")
	testkit.WriteFile(t, p, text(lines("a", 0, 3)))
	h.tr.reports.report(p, fs.ErrNotExist) // what the listing-to-open race reports
	must(t, os.Rename(p, h.path("app.log.1")))
	h.rounds(2)
	if n := h.warnings("vanished"); n != 0 {
		t.Fatalf("a file rotated away warned about %d times", n)
	}
}

func TestSymlinkReadOnce(t *testing.T) {
	h := newHarness(t, Options{StartAtBeginning: true})
	target := h.path("real.log")
	testkit.WriteFile(t, target, text(lines("r", 0, 5)))
	must(t, os.Symlink(target, h.path("link.log")))
	must(t, os.Link(target, h.path("real2.log")))
	files := h.round()
	h.expect(lines("r", 0, 5))
	if len(files) != 1 || files[0].Path() != h.path("link.log") || files[0].ResolvedPath() != target {
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
			for _, f := range h.tr.files.byID {
				if f.ID() == one[0] {
					moved = f
				}
			}
			if !within && (moved == nil || !moved.Finished() || moved.r.fd != nil) {
				t.Fatalf("file rotated out of the globs not finished and closed: %+v", moved)
			}
			h.expect(lines("one", 0, 120), lines("two", 0, 10))
		})
	}
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
