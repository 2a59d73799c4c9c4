package dirwatch

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func newWatcher(t *testing.T, dirs ...string) *Watcher {
	t.Helper()
	w, err := New()
	if errors.Is(err, ErrUnsupported) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := w.Close(); err != nil {
			t.Error(err)
		}
	})
	if _, err := w.Sync(dirs); err != nil {
		t.Fatal(err)
	}
	return w
}

// changes collects what Changes reports until want is among the paths (or,
// with want empty, until a rescan is asked for).
type changes struct {
	paths  map[string]bool
	rescan bool
}

func waitFor(t *testing.T, w *Watcher, want ...string) changes {
	t.Helper()
	got := changes{paths: map[string]bool{}}
	testkit.WaitUntil(t, testkit.Timeout, "changes "+strings.Join(want, ", "), func() bool {
		paths, rescan := w.Changes()
		for _, p := range paths {
			got.paths[p] = true
		}
		got.rescan = got.rescan || rescan
		if len(want) == 0 {
			return got.rescan
		}
		for _, p := range want {
			if !got.paths[p] {
				return false
			}
		}
		return true
	})
	return got
}

func TestWritesCreatesRenamesRemoves(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.log"), filepath.Join(dir, "b.log")
	testkit.WriteFile(t, a, "one\n")
	w := newWatcher(t, dir)

	testkit.AppendFile(t, a, "two\n")
	if got := waitFor(t, w, a); got.rescan {
		t.Fatal("a write asked for a rescan")
	}
	testkit.WriteFile(t, b, "new\n")
	if got := waitFor(t, w, b); got.rescan {
		t.Fatal("a file created asked for a rescan")
	}
	if err := os.Rename(a, a+".1"); err != nil {
		t.Fatal(err)
	}
	if got := waitFor(t, w, a, a+".1"); got.rescan {
		t.Fatal("a file renamed asked for a rescan")
	}
	if err := os.Remove(b); err != nil {
		t.Fatal(err)
	}
	if got := waitFor(t, w, b); got.rescan {
		t.Fatal("a file removed asked for a rescan")
	}
}

// A path reported again only after it changed again: Changes is a delta.
func TestChangesAreADelta(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.log"), filepath.Join(dir, "b.log")
	testkit.WriteFile(t, a, "one\n")
	w := newWatcher(t, dir)
	testkit.AppendFile(t, a, "two\n")
	waitFor(t, w, a)
	// b's event comes after any event of a's write; once b is seen, a is not reported with it.
	testkit.AppendFile(t, b, "b\n")
	got := waitFor(t, w, b)
	if got.paths[a] {
		t.Fatalf("a reported again without a change: %v", got.paths)
	}
}

func TestNewDirectoryAsksForRescan(t *testing.T) {
	dir := t.TempDir()
	w := newWatcher(t, dir)
	if err := os.Mkdir(filepath.Join(dir, "pod"), 0o755); err != nil {
		t.Fatal(err)
	}
	waitFor(t, w)
}

// A link to a directory, created in a watched one, is a directory whose files are not
// watched: a rescan, as for a directory created there.
func TestNewLinkToDirectoryAsksForRescan(t *testing.T) {
	dir, elsewhere := t.TempDir(), t.TempDir()
	w := newWatcher(t, dir)
	if err := os.Symlink(elsewhere, filepath.Join(dir, "current")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, w)
}

// The working directory, watched as ".", names its files as a listing of "*.log" does:
// without a "./".
func TestWorkingDirectoryNamesFilesBare(t *testing.T) {
	t.Chdir(t.TempDir())
	w := newWatcher(t, ".")
	testkit.WriteFile(t, "a.log", "x\n")
	waitFor(t, w, "a.log")
}

func TestWatchedDirectoryGoneAsksForRescan(t *testing.T) {
	w, dir, sub := watchedPod(t)
	if err := os.Rename(sub, sub+".old"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, w)
	// Synced again after the rescan: the directory that came back at the same path is
	// watched again (the system dropped the old watch with the old directory).
	remade(t, w, dir, sub)
}

// watchedPod watches a directory and a pod directory in it.
func watchedPod(t *testing.T) (w *Watcher, dir, sub string) {
	t.Helper()
	dir = t.TempDir()
	sub = filepath.Join(dir, "pod")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	return newWatcher(t, dir, sub), dir, sub
}

// remade makes sub again, where a directory was, and checks the next Sync watches it: a file
// written there is reported.
func remade(t *testing.T, w *Watcher, dir, sub string) {
	t.Helper()
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if added, err := w.Sync([]string{dir, sub}); err != nil || added != 1 {
		t.Fatalf("Sync added %d, %v; want the new directory", added, err)
	}
	p := filepath.Join(sub, "0.log")
	testkit.WriteFile(t, p, "x\n")
	waitFor(t, w, p)
}

// A directory reached through a symbolic link reports its files under the
// path it was asked for, and under its own path if asked for that too.
func TestAliasesOfOneDirectory(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "real")
	link := filepath.Join(dir, "link")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	w := newWatcher(t, link, target)
	testkit.WriteFile(t, filepath.Join(target, "a.log"), "x\n")
	waitFor(t, w, filepath.Join(link, "a.log"), filepath.Join(target, "a.log"))
}

func TestUnwatchedAfterSync(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	w := newWatcher(t, dir, other)
	if _, err := w.Sync([]string{other}); err != nil {
		t.Fatal(err)
	}
	gone, kept := filepath.Join(dir, "a.log"), filepath.Join(other, "b.log")
	testkit.WriteFile(t, gone, "x\n")
	testkit.WriteFile(t, kept, "x\n")
	if got := waitFor(t, w, kept); got.paths[gone] {
		t.Fatalf("a directory no longer watched still reported: %v", got.paths)
	}
}

func TestMissingDirectorySkipped(t *testing.T) {
	dir := t.TempDir()
	w := newWatcher(t)
	added, err := w.Sync([]string{filepath.Join(dir, "none"), dir})
	if err != nil || added != 1 {
		t.Fatalf("Sync added %d, %v; want 1 directory and no error", added, err)
	}
}

// More events than the kernel queues while nobody asks: the overflow asks for
// a rescan instead of leaving changes unreported.
func TestOverflowAsksForRescan(t *testing.T) {
	dir := t.TempDir()
	w := newWatcher(t, dir)
	overflow(t, dir)
	waitFor(t, w)
}

// A directory removed, or moved away, while the kernel's queue is full: what
// the system says of it (IN_IGNORED, IN_MOVE_SELF) is lost with the other
// events. The Sync after the overflow watches the directory made again at its
// path, and the system keeps no watch of the old one.
func TestOverflowRenewsWatches(t *testing.T) {
	for name, gone := range map[string]func(sub string) error{
		"removed":    os.RemoveAll,
		"moved away": func(sub string) error { return os.Rename(sub, sub+".old") },
	} {
		t.Run(name, func(t *testing.T) {
			w, dir, sub := watchedPod(t)
			overflow(t, sub)
			if err := gone(sub); err != nil {
				t.Fatal(err)
			}
			waitFor(t, w)
			remade(t, w, dir, sub)
			if n := systemWatches(t, w); n != 2 {
				t.Fatalf("the system holds %d watches; want 2 (the parent and the new directory)", n)
			}
		})
	}
}

// systemWatches counts the watches the system holds for w (its fdinfo lists one
// line each).
func systemWatches(t *testing.T, w *Watcher) int {
	t.Helper()
	var info []byte
	var err error
	if ctlErr := w.conn.Control(func(fd uintptr) {
		info, err = os.ReadFile("/proc/self/fdinfo/" + strconv.Itoa(int(fd)))
	}); ctlErr != nil {
		t.Fatal(ctlErr)
	}
	if err != nil {
		t.Skip("no fdinfo to count watches in:", err)
	}
	return strings.Count(string(info), "inotify wd:")
}

// overflow writes more events into dir than the kernel queues, skipping the
// test where the queue is too large to fill. Two files are written in turn:
// consecutive events differ, so the kernel merges none; nothing reads the queue
// until Changes is called.
func overflow(t *testing.T, dir string) {
	t.Helper()
	b, err := os.ReadFile("/proc/sys/fs/inotify/max_queued_events")
	if err != nil {
		t.Skip("no inotify queue limit to read:", err)
	}
	queued, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || queued > 1<<20 {
		t.Skipf("inotify queue of %q events: too large to overflow in a test", b)
	}
	fds := make([]*os.File, 2)
	for i := range fds {
		fd, err := os.Create(filepath.Join(dir, strconv.Itoa(i)))
		if err != nil {
			t.Fatal(err)
		}
		fds[i] = fd
	}
	for i := range queued + 16 {
		if _, err := fds[i%2].WriteString("x\n"); err != nil {
			t.Fatal(err)
		}
	}
	for _, fd := range fds {
		if err := fd.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestUnsupportedElsewhere(t *testing.T) {
	if runtime.GOOS == "linux" {
		t.Skip("supported here")
	}
	if _, err := New(); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("New on %s: %v, want ErrUnsupported", runtime.GOOS, err)
	}
}
