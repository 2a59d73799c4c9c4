package filetrack

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.uber.org/goleak"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// harness drives a Tracker the way the receiver does: poll, read every
// returned file to io.EOF, commit what was read (if commit is set).
type harness struct {
	t      *testing.T
	dir    string
	tr     *Tracker
	logs   *observer.ObservedLogs
	commit bool
	lines  map[uint64][]string // by identity, in read order
	errs   map[uint64][]error
	ends   map[uint64]int64 // last end returned
}

func newHarness(t *testing.T, opts Options) *harness {
	t.Helper()
	h := &harness{t: t, dir: t.TempDir(), commit: true}
	h.start(opts)
	return h
}

// start (re)creates the tracker over h.dir, closing the previous one.
func (h *harness) start(opts Options) {
	h.t.Helper()
	if h.tr != nil {
		if err := h.tr.Close(); err != nil {
			h.t.Fatal(err)
		}
	}
	core, logs := observer.New(zapcore.DebugLevel)
	h.logs = logs
	opts.Logger = zap.New(core)
	if opts.Include == nil {
		opts.Include = []string{filepath.Join(h.dir, "*")}
	}
	oracle := useWatchOracle(&opts)
	tr, err := New(opts)
	if err != nil {
		h.t.Fatal(err)
	}
	if oracle {
		tr.paths.watch.newHints = func() (hinter, error) { return &oracleHints{include: opts.Include}, nil }
	}
	h.tr = tr
	h.lines, h.errs, h.ends = map[uint64][]string{}, map[uint64][]error{}, map[uint64]int64{}
	h.t.Cleanup(func() { must(h.t, tr.Close()) })
}

func (h *harness) path(name string) string { return filepath.Join(h.dir, name) }

// round polls and reads every returned file to its end.
func (h *harness) round() []*File {
	h.t.Helper()
	files := h.tr.Poll()
	for _, f := range files {
		h.read(f)
	}
	return files
}

func (h *harness) read(f *File) {
	for {
		line, end, err := f.Next()
		if err != nil {
			if err != io.EOF {
				h.errs[f.ID()] = append(h.errs[f.ID()], err)
			}
			return
		}
		h.lines[f.ID()] = append(h.lines[f.ID()], string(line))
		h.ends[f.ID()] = end
		if h.commit {
			h.tr.Commit(f.ID(), end, 0)
		}
	}
}

// rounds runs n rounds.
func (h *harness) rounds(n int) {
	for range n {
		h.round()
	}
}

// all returns every line read, sorted.
func (h *harness) all() []string {
	var all []string
	for _, ls := range h.lines {
		all = append(all, ls...)
	}
	slices.Sort(all)
	return all
}

// expect checks that exactly want was read, each line once.
func (h *harness) expect(want ...[]string) {
	h.t.Helper()
	w := slices.Concat(want...)
	slices.Sort(w)
	got := h.all()
	if slices.Equal(got, w) {
		return
	}
	missing, extra := diff(w, got)
	h.t.Fatalf("read %d lines, want %d\nmissing: %s\nextra (duplicates or unexpected): %s",
		len(got), len(w), short(missing), short(extra))
}

func diff(want, got []string) (missing, extra []string) {
	count := map[string]int{}
	for _, s := range want {
		count[s]++
	}
	for _, s := range got {
		count[s]--
	}
	for s, n := range count {
		for ; n > 0; n-- {
			missing = append(missing, s)
		}
		for ; n < 0; n++ {
			extra = append(extra, s)
		}
	}
	slices.Sort(missing)
	slices.Sort(extra)
	return missing, extra
}

func short(s []string) string {
	if len(s) > 6 {
		return fmt.Sprintf("%q … (%d)", s[:6], len(s))
	}
	return fmt.Sprintf("%q", s)
}

// ids returns the identities that read lines with the given prefix.
func (h *harness) ids(prefix string) []uint64 {
	var ids []uint64
	for id, ls := range h.lines {
		for _, l := range ls {
			if strings.HasPrefix(l, prefix) {
				ids = append(ids, id)
				break
			}
		}
	}
	slices.Sort(ids)
	return ids
}

// warnings counts the logged warnings whose message contains s.
func (h *harness) warnings(s string) int {
	n := 0
	for _, e := range h.logs.All() {
		if e.Level == zapcore.WarnLevel && strings.Contains(e.Message, s) {
			n++
		}
	}
	return n
}

// warningsAbout counts the logged warnings about a path under dir.
func (h *harness) warningsAbout(dir string) int {
	n := 0
	for _, e := range h.logs.All() {
		if p, ok := e.ContextMap()["path"].(string); ok && e.Level == zapcore.WarnLevel && strings.HasPrefix(p, dir) {
			n++
		}
	}
	return n
}

// lines returns numbered lines tag-from … tag-(to-1), padded so that a few
// of them pass the fingerprint size.
func lines(tag string, from, to int) []string {
	return testkit.LinesOf(from, to, func(i int) string {
		return fmt.Sprintf("%s %06d the quick brown fox jumps over the lazy dog", tag, i)
	})
}

// text is lines as file content, as bytes to append to.
func text(ls []string) []byte { return []byte(testkit.Text(ls)) }

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// compressors are the formats the tests rotate files to.
var compressors = []struct {
	ext    string
	format testkit.Format
}{
	{".gz", testkit.Gzip},
	{".zst", testkit.Zstd},
	{".xz", testkit.Xz},
}

// compress rotates path to path+ext the way logrotate does: write the
// compressed file, then delete the original.
func compress(t *testing.T, path, ext string, format testkit.Format) {
	t.Helper()
	testkit.WriteFile(t, path+ext, testkit.Compress(t, format, readFile(t, path)))
	must(t, os.Remove(path))
}

// openFDs counts this process's descriptors on files under dir.
func openFDs(t *testing.T, dir string) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	n := 0
	for _, e := range ents {
		if target, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil &&
			strings.HasPrefix(target, dir+string(filepath.Separator)) {
			n++
		}
	}
	return n
}
