package filetrack

import (
	"errors"
	"io/fs"
	"os"
	"testing"
	"time"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

// probe runs fn twice: wide (a full listing at every poll) and narrow (exact watch
// oracle, full listings only when fullScan is called).
func probe(t *testing.T, opts Options, fn func(t *testing.T, h *harness, fullScan func())) {
	probeIn(t, func(string) Options { return opts }, fn)
}

func probeIn(t *testing.T, mk func(dir string) Options, fn func(t *testing.T, h *harness, fullScan func())) {
	for _, narrow := range []bool{false, true} {
		name := "wide"
		if narrow {
			name = "narrow"
		}
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, Options{})
			if !narrow {
				h.start(mk(h.dir))
				fn(t, h, func() {})
				return
			}
			o := mk(h.dir)
			o.Watch, o.FullScanInterval = true, time.Hour
			h.start(o)
			now := time.Unix(1e9, 0)
			inc := o.Include
			if inc == nil {
				inc = h.tr.opts.Include
			}
			h.tr.paths.watch.newHints = func() (hinter, error) { return &oracleHints{include: inc}, nil }
			h.tr.paths.watch.now = func() time.Time { return now }
			fn(t, h, func() { now = now.Add(2 * time.Hour) })
		})
	}
}

// delete_after_read with a hard link to the file in the glob: the first path is
// deleted, and the other, still listed, continues the identity (nothing new to
// read), narrow or wide: a file dropped from the listing but listed under
// another path makes the poll wide. Narrow polls once did not visit the other
// path, forgot the identity, and the next full listing read it again.
func TestNarrowAsWideDeleteAfterReadHardLink(t *testing.T) {
	probe(t, Options{StartAtBeginning: true, DeleteAfterRead: true}, func(t *testing.T, h *harness, fullScan func()) {
		a, b := h.path("a.log"), h.path("b.log")
		testkit.WriteFile(t, a, text(lines("a", 0, 50)))
		must(t, os.Link(a, b))
		h.rounds(4)
		h.rounds(forgetPolls + 5)
		fullScan()
		h.rounds(4)
		h.expect(lines("a", 0, 50))
	})
}

// delete_after_read with the commit arriving late (long after the file was read):
// the identity is kept forgetPolls polls after its file is deleted, so a
// compressed copy of it turning up then continues it. A quiet identity's
// lastSeen is brought up to date when it is visited again; narrow polls once
// forgot it in the poll that deleted the file, and read the copy again.
func TestNarrowAsWideDeleteAfterReadLateCommit(t *testing.T) {
	probe(t, Options{StartAtBeginning: true, DeleteAfterRead: true}, func(t *testing.T, h *harness, fullScan func()) {
		h.commit = false
		a := h.path("a.log")
		data := text(lines("a", 0, 50))
		testkit.WriteFile(t, a, data)
		h.rounds(2)
		c := h.path("c.log")             // another file, written all along: polls go on
		for i := range forgetPolls + 5 { // the deliveries are slow
			testkit.AppendFile(t, c, text(lines("c", i, i+1)))
			h.round()
		}
		for id, end := range h.ends {
			if id == h.ids("a")[0] {
				h.tr.Commit(id, end, 0)
			}
		}
		h.round() // deletes a.log
		if _, err := os.Stat(a); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("a.log not deleted: %v", err)
		}
		tracked := h.tr.Stats().FilesTracked
		// a compressed copy (logrotate's compress of a copy) turns up a poll later
		testkit.WriteFile(t, h.path("a.log.1.gz"), testkit.Compress(t, testkit.Gzip, data))
		t.Logf("identities tracked after the deleting poll: %d", tracked)
		h.rounds(4)
		h.expect(lines("a", 0, 50), lines("c", 0, forgetPolls+5))
	})
}

// Two hard links in the glob are one file, read under the first path in listing
// order, whichever the watches report first: a path stated again that is one of
// several to its file makes the poll wide (narrow polls once took the path
// reported first, and counted a rotation).
func TestNarrowAsWideHardLinkPathFlips(t *testing.T) {
	h, hints, _ := watched(t, Options{StartAtBeginning: true, FullScanInterval: time.Hour})
	a, b := h.path("a.log"), h.path("b.log")
	testkit.WriteFile(t, a, text(lines("a", 0, 5)))
	must(t, os.Link(a, b))
	h.rounds(3)
	f := h.tr.files.byID[h.ids("a")[0]]
	if f.Path() != a {
		t.Fatalf("path %s, want %s", f.Path(), a)
	}
	testkit.AppendFile(t, a, text(lines("a", 5, 6)))
	hints.paths = []string{b, a} // both changed: the same file
	h.round()
	h.expect(lines("a", 0, 6))
	if f.Path() != a || h.tr.Stats().Rotations != 0 {
		t.Fatalf("path %s, %d rotations; a wide poll keeps %s and counts none", f.Path(), h.tr.Stats().Rotations, a)
	}
}

// copytruncate whose copy is outside the globs and turns up compressed later
// (include *.log and *.gz; logrotate's copytruncate + compress): the truncation
// detaches the identity, which waits forgetPolls polls for its copy, also when
// it was quiet for longer than that (another file kept polls going) and so not
// visited: narrow polls once forgot it at once, and read the .gz from its start.
func TestNarrowAsWideCopytruncateQuietIdentityForgotten(t *testing.T) {
	mk := func(dir string) Options {
		return Options{StartAtBeginning: true, Include: []string{dir + "/*.log", dir + "/*.gz"}}
	}
	probeIn(t, mk, func(t *testing.T, h *harness, fullScan func()) {
		a, c := h.path("a.log"), h.path("c.log")
		testkit.WriteFile(t, a, text(lines("a", 0, 50)))
		h.rounds(2)
		for i := range forgetPolls + 5 { // a.log quiet, c.log written all along
			testkit.AppendFile(t, c, text(lines("c", i, i+1)))
			h.round()
		}
		testkit.AppendFile(t, a, text(lines("a", 50, 60))) // written just before the rotation
		data := readFile(t, a)
		testkit.WriteFile(t, h.path("a.log.1"), data) // the copy, outside the globs
		must(t, os.Truncate(a, 0))
		h.round()
		testkit.WriteFile(t, h.path("a.log.1.gz"), testkit.Compress(t, testkit.Gzip, data))
		must(t, os.Remove(h.path("a.log.1")))
		h.rounds(4)
		h.expect(lines("a", 0, 60), lines("c", 0, forgetPolls+5))
		for _, e := range h.logs.FilterMessageSnippet("truncated or rewritten before it was read").All() {
			t.Logf("logged: %s %v", e.Message, e.ContextMap()["unread_bytes"])
		}
	})
}

// A hard link made to a followed file (only the new path changed: the exact
// oracle reports it alone): the file stays under its first path in listing
// order, with no rotation (narrow polls once moved it to the new link, changing
// log.file.path, and the next full listing moved it back).
func TestNarrowAsWideNewHardLinkMovesFile(t *testing.T) {
	probe(t, Options{StartAtBeginning: true}, func(t *testing.T, h *harness, fullScan func()) {
		a, z := h.path("a.log"), h.path("z.log")
		testkit.WriteFile(t, a, text(lines("a", 0, 5)))
		h.rounds(3)
		must(t, os.Link(a, z))
		h.rounds(2)
		f := h.tr.files.byID[h.ids("a")[0]]
		h.expect(lines("a", 0, 5))
		if f.Path() != a || h.tr.Stats().Rotations != 0 {
			t.Fatalf("path %s, %d rotations; want %s, 0", f.Path(), h.tr.Stats().Rotations, a)
		}
	})
}
