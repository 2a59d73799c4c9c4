package filetrack

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

// fakeHints stands for the directory watches: it reports what the test says changed.
type fakeHints struct {
	synced  [][]string
	added   int   // what the next Sync returns
	syncErr error // what every Sync returns
	paths   []string
	rescan  bool
}

func (f *fakeHints) Sync(dirs []string) (int, error) {
	f.synced = append(f.synced, slices.Clone(dirs))
	added := f.added
	f.added = 0
	return added, f.syncErr
}

func (f *fakeHints) Changes() ([]string, bool) {
	paths, rescan := f.paths, f.rescan
	f.paths, f.rescan = nil, false
	return paths, rescan
}

func (f *fakeHints) Close() error { return nil }

// watched returns a harness whose tracker lists through fake watches, and its
// clock (which moves only when the test moves it).
func watched(t *testing.T, opts Options) (*harness, *fakeHints, *time.Time) {
	t.Helper()
	opts.Watch = true
	h := newHarness(t, opts)
	hints, now := &fakeHints{added: 1}, time.Unix(1e9, 0)
	fake(h, hints, &now)
	return h, hints, &now
}

// fake makes h's tracker (new after each h.start) list through hints and the clock now.
func fake(h *harness, hints *fakeHints, now *time.Time) {
	h.tr.paths.watch.newHints = func() (hinter, error) { return hints, nil }
	h.tr.paths.watch.now = func() time.Time { return *now }
}

// Between full listings only the reported paths are stated again: a change
// nobody reported is not seen until the full-scan interval passes, then it is.
func TestWatchStatesOnlyReportedPaths(t *testing.T) {
	h, hints, now := watched(t, Options{StartAtBeginning: true, FullScanInterval: time.Minute})
	a, b := h.path("a.log"), h.path("b.log")
	testkit.WriteFile(t, a, text(lines("a", 0, 2)))
	testkit.WriteFile(t, b, text(lines("b", 0, 2)))
	h.round() // lists fully, and watches the directory (newly: the next poll lists again)
	h.round()
	if len(hints.synced) != 2 || !slices.Equal(hints.synced[0], []string{h.dir}) {
		t.Fatalf("watched %v, want the directory at each of the first two polls", hints.synced)
	}

	testkit.AppendFile(t, a, text(lines("a", 2, 4)))
	testkit.AppendFile(t, b, text(lines("b", 2, 4)))
	hints.paths = []string{a}
	h.round()
	h.expect(lines("a", 0, 4), lines("b", 0, 2))

	*now = now.Add(time.Minute)
	h.round()
	h.expect(lines("a", 0, 4), lines("b", 0, 4))
	if len(hints.synced) != 3 {
		t.Fatalf("synced %d times, want 3 (the full listing at the interval syncs too)", len(hints.synced))
	}
}

// A reported path not listed yet is added if the globs match it; a listed one
// that no longer exists is dropped (its file is then drained, as when a full
// listing no longer finds it).
func TestWatchAddsAndDropsReportedPaths(t *testing.T) {
	h, hints, _ := watched(t, Options{StartAtBeginning: true})
	a := h.path("a.log")
	testkit.WriteFile(t, a, text(lines("a", 0, 2)))
	h.rounds(2)
	c := h.path("c.log")
	testkit.WriteFile(t, c, text(lines("c", 0, 2)))
	must(t, os.Rename(a, h.path("a.log.1")))
	hints.paths = []string{c, a, h.path("a.log.1")}
	h.round()
	h.expect(lines("a", 0, 2), lines("c", 0, 2))
	if got := h.tr.paths.entries; len(got) != 2 || got[0].path != h.path("a.log.1") || got[1].path != c {
		t.Fatalf("listing %+v, want a.log.1 and c.log", got)
	}
	if n := h.tr.Stats().Rotations; n != 1 {
		t.Fatalf("%d rotations, want the move of a.log", n)
	}
}

// An excluded path, or one the globs do not match, is not added when reported.
func TestWatchReportedPathMustMatch(t *testing.T) {
	h, hints, now := watched(t, Options{StartAtBeginning: true})
	h.start(Options{
		Include: []string{filepath.Join(h.dir, "*.log")}, Exclude: []string{filepath.Join(h.dir, "skip*")},
		StartAtBeginning: true, Watch: true,
	})
	fake(h, hints, now)
	h.rounds(2)
	skip, txt := h.path("skip.log"), h.path("a.txt")
	testkit.WriteFile(t, skip, text(lines("skip", 0, 2)))
	testkit.WriteFile(t, txt, text(lines("txt", 0, 2)))
	hints.paths = []string{skip, txt}
	h.round()
	h.expect()
	if len(h.tr.paths.entries) != 0 {
		t.Fatalf("listing %+v, want nothing", h.tr.paths.entries)
	}
}

// The watches losing track (an overflow, a directory appearing or going) list
// everything at once, in the same poll.
func TestWatchRescanListsAtOnce(t *testing.T) {
	h, hints, _ := watched(t, Options{StartAtBeginning: true})
	h.rounds(2)
	testkit.WriteFile(t, h.path("a.log"), text(lines("a", 0, 2)))
	h.round()
	h.expect()
	hints.rescan = true
	h.round()
	h.expect(lines("a", 0, 2))
}

// Directories watched only after a listing may have got files in between, which
// raised no event: the next poll lists fully.
func TestWatchNewDirectoriesListedAgain(t *testing.T) {
	h, hints, _ := watched(t, Options{StartAtBeginning: true})
	h.round()
	testkit.WriteFile(t, h.path("a.log"), text(lines("a", 0, 2)))
	h.round()
	h.expect(lines("a", 0, 2))
	testkit.WriteFile(t, h.path("b.log"), text(lines("b", 0, 2)))
	h.round()
	h.expect(lines("a", 0, 2))
	if len(hints.synced) != 2 {
		t.Fatalf("synced %d times, want 2", len(hints.synced))
	}
}

// While some directory cannot be watched, every poll lists fully; watching is
// tried again at the full-scan interval, and once it works polls list only
// what changed again. Both turns are logged once.
func TestWatchBrokenListsEveryPoll(t *testing.T) {
	h, hints, now := watched(t, Options{StartAtBeginning: true, FullScanInterval: time.Minute})
	hints.syncErr = errors.New("no space left on device")
	a := h.path("a.log")
	testkit.WriteFile(t, a, text(lines("a", 0, 2)))
	h.round()
	for i := 2; i < 5; i++ {
		testkit.AppendFile(t, a, text(lines("a", i, i+1)))
		h.round()
		h.expect(lines("a", 0, i+1))
	}
	if len(hints.synced) != 1 {
		t.Fatalf("synced %d times within the interval, want 1", len(hints.synced))
	}
	hints.syncErr, hints.added = nil, 1
	*now = now.Add(time.Minute)
	h.round() // Sync works and adds the directory: the next poll lists fully
	testkit.AppendFile(t, a, text(lines("a", 5, 6)))
	h.round()
	testkit.AppendFile(t, a, text(lines("a", 6, 7)))
	h.round()
	h.expect(lines("a", 0, 6))
	if len(hints.synced) != 3 {
		t.Fatalf("synced %d times, want 3", len(hints.synced))
	}
	if n := h.logs.FilterMessageSnippet("cannot be watched").Len(); n != 1 {
		t.Errorf("%d logs of directories that cannot be watched, want 1", n)
	}
	if n := h.logs.FilterMessageSnippet("watched again").Len(); n != 1 {
		t.Errorf("%d logs of watching again, want 1", n)
	}
}

// Without watches (not Linux, the system's limit of inotify instances) every
// poll lists fully, as with Watch off, and says so once.
func TestWatchUnavailable(t *testing.T) {
	h, _, _ := watched(t, Options{StartAtBeginning: true})
	h.tr.paths.watch.newHints = func() (hinter, error) { return nil, errors.New("too many open files") }
	a := h.path("a.log")
	for i := range 3 {
		testkit.AppendFile(t, a, text(lines("a", i, i+1)))
		h.round()
		h.expect(lines("a", 0, i+1))
	}
	if n := h.logs.FilterMessageSnippet("directory watches unavailable").Len(); n != 1 {
		t.Errorf("%d logs of watches unavailable, want 1", n)
	}
}

// Watched: the directories the globs' directory parts match (empty ones too),
// those up to the globs' static base, and those of listed links' targets; a
// change reported in a target's directory states the link again.
func TestWatchDirectoriesAndLinks(t *testing.T) {
	h, hints, now := watched(t, Options{StartAtBeginning: true})
	pods, other := h.path("pods"), t.TempDir()
	for _, d := range []string{"p1/c", "p2/c", "p3", "p3/c/deeper"} {
		must(t, os.MkdirAll(filepath.Join(pods, d), 0o755))
	}
	target := filepath.Join(other, "0.log")
	testkit.WriteFile(t, target, text(lines("t", 0, 2)))
	testkit.WriteFile(t, filepath.Join(pods, "p1", "c", "0.log"), text(lines("p", 0, 2)))
	link := filepath.Join(pods, "p2", "c", "0.log")
	must(t, os.Symlink(target, link))
	h.start(Options{Include: []string{filepath.Join(pods, "*", "*", "*.log")}, StartAtBeginning: true, Watch: true})
	fake(h, hints, now)
	hints.synced = nil
	h.rounds(2)
	want := []string{pods, filepath.Join(pods, "p1"), filepath.Join(pods, "p1", "c"), filepath.Join(pods, "p2"),
		filepath.Join(pods, "p2", "c"), filepath.Join(pods, "p3"), filepath.Join(pods, "p3", "c"), other}
	slices.Sort(want)
	if !slices.Equal(hints.synced[0], want) {
		t.Fatalf("watched\n%v, want\n%v", hints.synced[0], want)
	}
	h.expect(lines("p", 0, 2), lines("t", 0, 2))
	testkit.AppendFile(t, target, text(lines("t", 2, 4)))
	hints.paths = []string{target}
	h.round()
	h.expect(lines("p", 0, 2), lines("t", 0, 4))
}

// inotifyHarness follows */*.log below its directory with the real watches and
// a full listing an hour apart; it skips the test where watches are unavailable.
func inotifyHarness(t *testing.T) *harness {
	t.Helper()
	h := newHarness(t, Options{StartAtBeginning: true})
	h.start(Options{Include: []string{filepath.Join(h.dir, "*", "*.log")}, StartAtBeginning: true,
		Watch: true, FullScanInterval: time.Hour})
	probe, err := h.tr.paths.watch.newHints()
	if err != nil {
		t.Skip("no directory watches here:", err)
	}
	must(t, probe.Close())
	return h
}

// The real watches, end to end: writes, a new directory, a rotation, without a
// full listing after the first ones (the interval is an hour).
func TestWatchWithInotify(t *testing.T) {
	h := inotifyHarness(t)
	pod := h.path("pod1")
	must(t, os.Mkdir(pod, 0o755))
	p := filepath.Join(pod, "app.log")
	testkit.WriteFile(t, p, text(lines("a", 0, 2)))
	roundsUntil := func(what string, want ...[]string) {
		t.Helper()
		w := slices.Concat(want...)
		testkit.WaitUntil(t, testkit.Timeout, what, func() bool {
			h.round()
			return len(h.all()) >= len(w)
		})
		h.expect(want...)
	}
	roundsUntil("the first lines", lines("a", 0, 2))
	testkit.AppendFile(t, p, text(lines("a", 2, 4)))
	roundsUntil("lines appended", lines("a", 0, 4))

	pod2 := h.path("pod2")
	must(t, os.Mkdir(pod2, 0o755))
	testkit.WriteFile(t, filepath.Join(pod2, "app.log"), text(lines("b", 0, 2)))
	roundsUntil("a new directory's file", lines("a", 0, 4), lines("b", 0, 2))

	h.round() // lists fully: pod2 was watched only after the listing that found it
	lastFull := h.tr.paths.watch.lastFull
	testkit.AppendFile(t, p, text(lines("a", 4, 6)))
	must(t, os.Rename(p, p+".1.log"))
	testkit.WriteFile(t, p, text(lines("a2", 0, 2)))
	roundsUntil("a rotation", lines("a", 0, 6), lines("b", 0, 2), lines("a2", 0, 2))
	if !h.tr.paths.watch.lastFull.Equal(lastFull) {
		t.Fatal("the rotation was seen by a full listing, not by the watches")
	}
}

// A glob whose directory part matches nothing yet watches its static base: the
// first directory to match, and its files, are seen without a full listing
// (the receiver's first poll can come before a pod's directory exists).
func TestWatchSeesFirstDirectory(t *testing.T) {
	h := inotifyHarness(t)
	h.round()
	pod := h.path("pod1")
	must(t, os.Mkdir(pod, 0o755))
	testkit.WriteFile(t, filepath.Join(pod, "app.log"), text(lines("a", 0, 2)))
	testkit.WaitUntil(t, testkit.Timeout, "the first directory's file", func() bool {
		h.round()
		return len(h.all()) >= 2
	})
	h.expect(lines("a", 0, 2))
}

// Narrow polls (see visits) look only at what may need something, and the
// tracker comes to rest once nothing does: after files were read, after one
// was deleted while it had no descriptor (one descriptor for two files) and its
// identity, finished only then, was forgotten; a quiet one stays unvisited.
func TestWatchNarrowPollsComeToRest(t *testing.T) {
	h, hints, _ := watched(t, Options{StartAtBeginning: true, FullScanInterval: time.Hour, MaxConcurrentFiles: 1})
	testkit.WriteFile(t, h.path("a.log"), text(lines("a", 0, 2)))
	testkit.WriteFile(t, h.path("b.log"), text(lines("b", 0, 2)))
	h.rounds(6)
	h.expect(lines("a", 0, 2), lines("b", 0, 2))
	if !h.tr.paths.watch.rest || len(h.tr.v.busyFiles)+len(h.tr.v.busyDisks) != 0 {
		t.Fatalf("not at rest after reading: busy %d files, %d on disk", len(h.tr.v.busyFiles), len(h.tr.v.busyDisks))
	}
	var closed, open *File
	for _, f := range h.tr.files.byID {
		if f.r.fd == nil {
			closed = f
		} else {
			open = f
		}
	}
	if closed == nil || open == nil {
		t.Fatal("want one file with the descriptor and one without")
	}
	must(t, os.Remove(closed.Path()))
	hints.paths = []string{closed.Path()}
	h.rounds(forgetPolls + 3)
	if n := h.tr.Stats().FilesTracked; n != 1 {
		t.Fatalf("%d identities, want one (the deleted file's forgotten)", n)
	}
	if !h.tr.paths.watch.rest || len(h.tr.v.busyFiles)+len(h.tr.v.busyDisks) != 0 {
		t.Fatalf("not at rest after forgetting: busy %d files, %d on disk", len(h.tr.v.busyFiles), len(h.tr.v.busyDisks))
	}
	testkit.AppendFile(t, open.Path(), "more\n")
	hints.paths = []string{open.Path()}
	h.round()
	if got := h.tr.v.files; len(got) != 1 || got[0] != open {
		t.Fatalf("visited %d identities, want the written one only", len(got))
	}
	if l := h.lines[open.ID()]; l[len(l)-1] != "more" {
		t.Fatalf("read %q, want the line written last", l)
	}
}
