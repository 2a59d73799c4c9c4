package filetrack

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

// The causes TestKubeletRotationRandom found, each on its own, step by step.

// reuseInode gives the inode of the file at from to a new file at to holding content: what the
// tracker sees when a file is deleted and the file system gives its inode to a file created
// before the next poll (ext4 does so at once).
func reuseInode(t *testing.T, from, to string, content []byte) {
	t.Helper()
	must(t, os.Rename(from, to))
	must(t, os.Truncate(to, 0))
	testkit.AppendFile(t, to, content)
}

// Kubelet prunes a rotated .gz read to its end, and containerd's new 0.log gets its inode
// before the next poll: the new 0.log is a new file, read from its start. It was taken for the
// .gz moved, whose identity was done at the .gz's decompressed size: the new 0.log was never
// read, nor counted lost.
func TestInodeReusedIsNotAMove(t *testing.T) {
	probe(t, Options{StartAtBeginning: true}, func(t *testing.T, h *harness, _ func()) {
		live, gz := h.path("0.log"), h.path("0.log.20261202-000001.gz")
		testkit.WriteFile(t, gz, testkit.Compress(t, testkit.Gzip, text(lines("old", 0, 40))))
		testkit.WriteFile(t, live, text(lines("live", 0, 40)))
		h.rounds(3)
		h.expect(lines("old", 0, 40), lines("live", 0, 40))

		must(t, os.Rename(live, h.path("0.log.20261202-000002")))
		reuseInode(t, gz, live, text(lines("new", 0, 40)))
		h.rounds(3)
		testkit.AppendFile(t, live, text(lines("new", 40, 50)))
		h.rounds(3)
		h.expect(lines("old", 0, 40), lines("live", 0, 40), lines("new", 0, 50))
	})
}

// The same with the new file created empty, as containerd's reopen creates it, and written
// after the poll that sees it, while the one descriptor is taken: smaller than the file whose
// inode it got, it is new, though it cannot be read to be told.
func TestInodeReusedByEmptyFileIsNotAMove(t *testing.T) {
	probe(t, Options{StartAtBeginning: true, MaxConcurrentFiles: 1}, func(t *testing.T, h *harness, _ func()) {
		live, rotated := h.path("0.log"), h.path("0.log.20261202-000001")
		testkit.WriteFile(t, rotated, text(lines("old", 0, 40)))
		testkit.WriteFile(t, live, text(lines("live", 0, 40)))
		h.rounds(3)
		must(t, os.Rename(live, h.path("0.log.20261202-000002")))
		reuseInode(t, rotated, live, nil)
		h.rounds(2)
		testkit.AppendFile(t, live, text(lines("new", 0, 50)))
		h.rounds(4)
		h.expect(lines("old", 0, 40), lines("live", 0, 40), lines("new", 0, 50))
	})
}

// compressing is kubelet's compressLog stopped half way: <name>.tmp holds the first half of
// the gzip stream of name. It returns the rest, to append later.
func compressing(t *testing.T, name string) (rest []byte) {
	t.Helper()
	gz := testkit.Compress(t, testkit.Gzip, readFile(t, name))
	testkit.WriteFile(t, name+".tmp", gz[:len(gz)/2])
	return gz[len(gz)/2:]
}

// Kubelet's <name>.tmp, half written, that decodes short of every check point of name's
// identity (read to its end in one round: its only check point is there) is compared with
// name directly, at the end of what decodes: it is the copy it is, however long it stays half
// written, with a descriptor to spare or none. It was undecided, and after settlePolls polls
// without growth a new identity read again from its start.
func TestCompressingCopyIsNotNew(t *testing.T) {
	for _, fds := range []int{1, 2, 3, 1024} {
		probe(t, Options{StartAtBeginning: true, MaxConcurrentFiles: fds}, func(t *testing.T, h *harness, _ func()) {
			name := h.path("0.log.20261202-000001")
			testkit.WriteFile(t, name, text(lines("a", 0, 200)))
			h.rounds(2)
			rest := compressing(t, name)
			h.rounds(3 * settlePolls)
			testkit.AppendFile(t, name+".tmp", rest)
			h.rounds(2)
			must(t, os.Rename(name+".tmp", name+".gz"))
			must(t, os.Remove(name))
			h.rounds(forgetPolls + 2)
			h.expect(lines("a", 0, 200))
			if st := h.tr.Stats(); st.FilesDiscovered != 1 || st.BytesLost != 0 {
				t.Errorf("%d identities, %d bytes lost; want 1 and 0", st.FilesDiscovered, st.BytesLost)
			}
		})
	}
}

// A rotation compressed kubelet's way (<name>.tmp written beside its original, renamed to
// <name>.gz, the original removed) once what of its original was compared had all been read is
// finished without being decoded again (a compressed stream cannot seek: reading on at the
// offset decodes all before it), whether it was read before the comparison or after it, from
// the original's descriptor.
func TestCompressedRotationReadBeforeIsNotDecodedAgain(t *testing.T) {
	for _, unread := range []int{0, 50} {
		t.Run(fmt.Sprintf("unread=%d", unread), func(t *testing.T) {
			h := newHarness(t, Options{StartAtBeginning: true})
			name := h.path("0.log.20261202-000001")
			testkit.WriteFile(t, name, text(lines("a", 0, 200)))
			h.rounds(2)
			testkit.AppendFile(t, name, text(lines("a", 200, 200+unread)))
			testkit.WriteFile(t, name+".tmp", testkit.Compress(t, testkit.Gzip, readFile(t, name)))
			h.tr.Poll() // compares the copy with its original, nothing read
			must(t, os.Rename(name+".tmp", name+".gz"))
			must(t, os.Remove(name))
			h.rounds(forgetPolls + 2)
			h.expect(lines("a", 0, 200+unread))
			if again := h.tr.Stats().DecodedAgain; again != 0 {
				t.Errorf("decoded %d bytes again; want none", again)
			}
		})
	}
}

// readWhole finishes a compressed source without decoding it only if it was found complete
// where reading is, and has not changed size nor modification time since.
func TestReadWholeOnlyWhereReadingIsAndUnchanged(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a.gz")
	testkit.WriteFile(t, p, testkit.Compress(t, testkit.Gzip, text(lines("a", 0, 10))))
	fd, err := os.Open(p)
	must(t, err)
	defer func() { _ = fd.Close() }()
	info, err := fd.Stat()
	must(t, err)
	size, mtime, end := info.Size(), info.ModTime().UnixNano(), int64(len(text(lines("a", 0, 10))))
	for _, c := range []struct {
		name  string
		whole whole
		off   int64
		want  bool
	}{
		{"complete where reading is", whole{size, mtime, end}, end, true},
		{"nothing known", whole{}, end, false},
		{"lines unread", whole{size, mtime, end}, end - 1, false},
		{"changed size since", whole{size - 1, mtime, end}, end, false},
		{"rewritten since, same size", whole{size, mtime - 1, end}, end, false},
	} {
		r := reader{fd: fd, whole: c.whole, off: c.off}
		if got := r.readWhole(); got != c.want {
			t.Errorf("%s: readWhole %v; want %v", c.name, got, c.want)
		}
	}
}

// A candidate compared with the plain file it may copy, while that file's descriptor is
// closed, opens it for the comparison: the descriptor was not counted open but was counted
// closed, and the count of open descriptors drifted below the truth, past the bound.
func TestFilesOpenCountsComparisons(t *testing.T) {
	h := newHarness(t, Options{StartAtBeginning: true, MaxConcurrentFiles: 2})
	a := h.path("a.log")
	for _, name := range []string{"a", "b", "c"} {
		testkit.WriteFile(t, h.path(name+".log"), text(lines(name, 0, 100)))
	}
	h.rounds(3) // two descriptors for three files: a's is closed for c's
	for i := range 3 {
		must(t, os.WriteFile(h.path("copy.log"), readFile(t, a)[:2000+100*i], 0o644))
		h.round()
		if got, want := h.tr.Stats().FilesOpen, openFDs(t, h.dir); got != want || got > 2 {
			t.Fatalf("round %d: %d descriptors counted, %d open (bound 2)", i, got, want)
		}
	}
	h.expect(lines("a", 0, 100), lines("b", 0, 100), lines("c", 0, 100))
}

// scriptedHints reports the changes a test gives it, when it gives them.
type scriptedHints struct{ next []string }

func (s *scriptedHints) Sync([]string) (int, error) { return 0, nil }
func (s *scriptedHints) Close() error               { return nil }
func (s *scriptedHints) Changes() ([]string, bool) {
	out := slices.Clone(s.next)
	s.next = s.next[:0]
	return out, false
}

// Kubelet renames 0.log and the watches tell of the old name before the new one: the file is
// not seen, drained to its end and finished; containerd writes more to it before its reopen;
// then the new name is told, before the file was let go. The file is read on. It stayed
// finished: what was written to it after the rename (containerd's last flush) was never read.
func TestDrainedFileSeenLateIsReadOn(t *testing.T) {
	h := newHarness(t, Options{})
	o := Options{Include: []string{h.path("0.log*")}, StartAtBeginning: true, Watch: true, FullScanInterval: time.Hour}
	h.start(o)
	hints := &scriptedHints{}
	h.tr.paths.watch.newHints = func() (hinter, error) { return hints, nil }
	live, rotated := h.path("0.log"), h.path("0.log.20261202-000001")
	w, err := os.OpenFile(live, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	must(t, err)
	defer func() { must(t, w.Close()) }()
	_, err = w.Write(text(lines("a", 0, 50)))
	must(t, err)
	h.rounds(2)
	_, err = w.Write(text(lines("a", 50, 55)))
	must(t, err)
	must(t, os.Rename(live, rotated))
	hints.next = []string{live}
	h.rounds(2) // drained to its end, then finished
	_, err = w.Write(text(lines("a", 55, 60)))
	must(t, err)
	hints.next = []string{rotated}
	h.rounds(3)
	h.expect(lines("a", 0, 60))
}
