package filetrack

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

// kubeletDir is one container's log directory as a node writes it: containerd appends to 0.log
// and kubelet's ContainerLogManager rotates it (k8s.io/kubernetes pkg/kubelet/logs). A rotation
// is a list of single file operations, in kubelet's order, so that a test can poll between any
// two of them:
//
//  1. remove the *.tmp left by an interrupted compression, and every plain rotated file whose
//     .gz exists;
//  2. remove the oldest rotated files beyond maxFiles-2;
//  3. compress each plain rotated file: write <name>.tmp (a gzip stream, in two writes, so that
//     a poll may see it half written), rename it to <name>.gz, remove <name>;
//  4. rename 0.log to 0.log.<stamp>; containerd's reopen then creates a new 0.log, and its old
//     logger may flush the part of a line it held to the renamed file first.
type kubeletDir struct {
	t        *testing.T
	dir, tag string
	maxSize  int64
	maxFiles int

	live    *os.File // containerd's descriptor of 0.log
	at      string   // where live is now: 0.log, or where it was renamed to until the reopen
	size    int64    // of 0.log
	written []string // every line, in order
	stamp   int
	ops     []func() // the rotation under way
	node    *kubeletNode
}

// note records an operation on the paths in the node's trace and its events.
func (k *kubeletDir) note(what string, paths ...string) {
	k.node.trace = append(k.node.trace, k.tag+": "+what)
	k.node.events = append(k.node.events, paths...)
}

func newKubeletDir(t *testing.T, node *kubeletNode, root, tag string, maxSize int64, maxFiles int) *kubeletDir {
	t.Helper()
	k := &kubeletDir{t: t, node: node, dir: filepath.Join(root, "ns_pod-"+tag+"_uid", "app"), tag: tag, maxSize: maxSize, maxFiles: maxFiles}
	must(t, os.MkdirAll(k.dir, 0o755))
	k.reopen()
	t.Cleanup(func() { must(t, k.live.Close()) })
	return k
}

func (k *kubeletDir) path(name string) string { return filepath.Join(k.dir, name) }

// reopen is containerd's ReopenContainerLog: a new 0.log, written from now on.
func (k *kubeletDir) reopen() {
	if k.live != nil {
		must(k.t, k.live.Close())
	}
	f, err := os.OpenFile(k.path("0.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o640)
	must(k.t, err)
	k.live, k.size, k.at = f, 0, k.path("0.log")
	k.note("reopen", k.at)
}

// write appends n numbered lines, of lengths that vary, to 0.log.
func (k *kubeletDir) write(n int) {
	var b []byte
	for range n {
		i := len(k.written)
		line := fmt.Sprintf("2026-12-02T08:00:00.%09dZ stdout F %s %07d %s", i, k.tag, i, strings.Repeat("x", 20+i*7%80))
		k.written = append(k.written, line)
		b = append(append(b, line...), '\n')
	}
	_, err := k.live.Write(b)
	must(k.t, err)
	k.size += int64(len(b))
	k.note(fmt.Sprintf("write %d lines, to %d", n, len(k.written)), k.at)
}

// rotated lists the rotated files as kubelet's glob 0.log.* does, sorted.
func (k *kubeletDir) rotated() []string {
	m, err := filepath.Glob(k.path("0.log.*"))
	must(k.t, err)
	slices.Sort(m)
	return m
}

// monitor is kubelet's look at 0.log: over maxSize it plans a rotation (the steps above, done
// one by one by step). It reports whether a rotation is under way.
func (k *kubeletDir) monitor() bool {
	if len(k.ops) > 0 {
		return true
	}
	if k.size < k.maxSize {
		return false
	}
	logs := k.rotated()
	var inuse []string
	for _, l := range logs {
		switch {
		case strings.HasSuffix(l, ".tmp"), slices.Contains(logs, l+".gz"):
			k.ops = append(k.ops, k.remove(l))
		default:
			inuse = append(inuse, l)
		}
	}
	excess := max(len(inuse)-max(k.maxFiles-2, 0), 0)
	for _, l := range inuse[:excess] {
		k.ops = append(k.ops, k.remove(l))
	}
	for _, l := range inuse[excess:] {
		if !strings.HasSuffix(l, ".gz") {
			k.ops = append(k.ops, k.compress(l)...)
		}
	}
	k.stamp++
	to := k.path(fmt.Sprintf("0.log.20261202-%06d", k.stamp))
	k.ops = append(k.ops, func() {
		must(k.t, os.Rename(k.path("0.log"), to))
		k.at = to
		k.note("rename 0.log to "+filepath.Base(to), k.path("0.log"), to)
	}, k.reopen)
	return true
}

// step does the next operation of the rotation under way; false if there is none.
func (k *kubeletDir) step() bool {
	if !k.monitor() {
		return false
	}
	op := k.ops[0]
	k.ops = k.ops[1:]
	op()
	return true
}

func (k *kubeletDir) remove(p string) func() {
	return func() {
		must(k.t, os.Remove(p))
		k.note("remove "+filepath.Base(p), p)
	}
}

// compress is kubelet's compressLog as steps: the .tmp written in two halves, renamed to .gz,
// the plain file removed.
func (k *kubeletDir) compress(p string) []func() {
	var gz []byte
	tmp := p + ".tmp"
	return []func(){
		func() {
			gz = testkit.Compress(k.t, testkit.Gzip, readFile(k.t, p))
			testkit.WriteFile(k.t, tmp, gz[:len(gz)/2])
			k.note("half of "+filepath.Base(tmp), tmp)
		},
		func() {
			testkit.AppendFile(k.t, tmp, gz[len(gz)/2:])
			k.note("rest of "+filepath.Base(tmp), tmp)
		},
		func() {
			must(k.t, os.Rename(tmp, p+".gz"))
			k.note("rename "+filepath.Base(tmp)+" to .gz", tmp, p+".gz")
		},
		k.remove(p),
	}
}

// kubeletOptions are the shipped agent's globs over root.
func kubeletOptions(root string) Options {
	return Options{
		Include:          []string{filepath.Join(root, "*", "*", "*.log"), filepath.Join(root, "*", "*", "*.log.*")},
		StartAtBeginning: true,
	}
}

// kubeletNode is the containers of a node, with what happened to their files: a trace for
// the failure report, and the paths changed, in order, for the watches of lagHints.
type kubeletNode struct {
	dirs   []*kubeletDir
	trace  []string
	events []string
}

// lagHints are directory watches whose events arrive late: each Changes reports the changes
// up to a random point of what happened since the last (while the poll, which states the
// paths, sees the files as they are now), as a collector busy with its poll on one core
// reads inotify's queue.
type lagHints struct {
	node *kubeletNode
	rng  *rand.Rand
}

func (l *lagHints) Sync([]string) (int, error) { return 0, nil }

func (l *lagHints) Close() error { return nil }

func (l *lagHints) Changes() ([]string, bool) {
	n := l.rng.IntN(len(l.node.events) + 1)
	out := slices.Clone(l.node.events[:n])
	l.node.events = l.node.events[n:]
	return out, false
}

// TestKubeletRotationRandom writes and rotates two containers' logs as a node does while the
// tracker polls between any two file operations, reading some of each file handed out or
// not reading at all (deliveries blocked), with few or many descriptors, full listings at
// every poll, narrow polls told exactly what changed, or told late: every line is read once.
func TestKubeletRotationRandom(t *testing.T) {
	for seed := range uint64(32) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			fds := []int{1, 2, 3, 1024}[seed%4]
			probeIn(t, func(dir string) Options {
				o := kubeletOptions(dir)
				o.MaxConcurrentFiles = fds
				return o
			}, func(t *testing.T, h *harness, fullScan func()) {
				kubeletRandom(t, h, &kubeletNode{}, rand.New(rand.NewPCG(seed, 7)), fullScan)
			})
			t.Run("late", func(t *testing.T) {
				h := newHarness(t, Options{})
				o := kubeletOptions(h.dir)
				o.MaxConcurrentFiles, o.Watch, o.FullScanInterval = fds, true, time.Hour
				h.start(o)
				node, rng := &kubeletNode{}, rand.New(rand.NewPCG(seed, 7))
				now := time.Unix(1e9, 0)
				h.tr.paths.watch.newHints = func() (hinter, error) { return &lagHints{node: node, rng: rng}, nil }
				h.tr.paths.watch.now = func() time.Time { return now }
				kubeletRandom(t, h, node, rng, func() { now = now.Add(2 * time.Hour) })
			})
		})
	}
}

func kubeletRandom(t *testing.T, h *harness, node *kubeletNode, rng *rand.Rand, fullScan func()) {
	keep := 2 + rng.IntN(4) // kubelet's containerLogMaxFiles: 2 keeps no rotated file but the last
	node.dirs = []*kubeletDir{newKubeletDir(t, node, h.dir, "a", 4<<10, keep), newKubeletDir(t, node, h.dir, "b", 4<<10, keep)}
	defer func() {
		if t.Failed() {
			t.Log(strings.Join(node.trace, "\n"))
			for id, ls := range h.lines {
				t.Logf("identity %d: %d lines, %.60s … %.60s", id, len(ls), ls[0][31:], ls[len(ls)-1][31:])
			}
			for _, e := range h.logs.All() {
				t.Log(e.Level, e.Message, e.ContextMap())
			}
		}
	}()
	for range 400 {
		k := node.dirs[rng.IntN(len(node.dirs))]
		switch rng.IntN(9) {
		case 0, 1:
			k.write(1 + rng.IntN(20))
		case 2, 3:
			k.step()
		case 4, 5:
			node.trace = append(node.trace, "  poll")
			for _, f := range h.tr.Poll() {
				h.readSome(f, 1+rng.IntN(30))
				node.trace = append(node.trace, fmt.Sprintf("  read %d %s to %d", f.ID(), f.Path()[len(h.dir):], f.Offset()))
			}
		case 6:
			node.trace = append(node.trace, "  full scan")
			fullScan()
		default:
			node.trace = append(node.trace, "  holding poll")
			h.tr.PollHolding()
		}
	}
	for _, k := range node.dirs {
		for k.step() {
		}
	}
	fullScan()
	h.rounds(forgetPolls + 5)
	var want []string
	for _, k := range node.dirs {
		want = append(want, k.written...)
	}
	slices.Sort(want)
	missing, extra := diff(want, h.all())
	if len(extra) > 0 {
		t.Fatalf("%d lines read twice or unexpected: %s", len(extra), short(extra))
	}
	// Lines kubelet deleted before they could be read (the deliveries blocked, no descriptor
	// free) are lost, but never silently: each run of them is in a file warned about, whose
	// unread bytes are counted (those written after the tracker last saw its size cannot be).
	var missed int64
	for _, l := range missing {
		missed += int64(len(l) + 1)
	}
	lost, runs := h.tr.Stats().BytesLost, seqRanges(missing)
	for _, k := range node.dirs {
		if n := strings.Count(runs, " "+k.tag+" "); n > h.warningsAbout(k.dir) {
			t.Errorf("%d runs of %s's lines missing, %d warnings: %s", n, k.tag, h.warningsAbout(k.dir), runs)
		}
	}
	if lost > missed || missed > 0 && lost == 0 {
		t.Errorf("%d bytes counted lost, %d missing: %s", lost, missed, runs)
	}
}

// seqRanges shows kubeletDir lines as runs of their container and numbers.
func seqRanges(ls []string) string {
	var b strings.Builder
	var tag string
	first, last, bytes := -2, -2, 0
	flush := func() {
		if first >= 0 {
			fmt.Fprintf(&b, " %s %d-%d (%d bytes)", tag, first, last, bytes)
		}
	}
	ls = slices.Clone(ls)
	slices.SortFunc(ls, func(a, b string) int { return strings.Compare(a[31:], b[31:]) }) // by container, then number
	for _, l := range ls {
		var ts, stream, f, tg string
		var n int
		if _, err := fmt.Sscanf(l, "%s %s %s %s %d", &ts, &stream, &f, &tg, &n); err != nil {
			continue
		}
		if tg != tag || n != last+1 {
			flush()
			tag, first, bytes = tg, n, 0
		}
		last = n
		bytes += len(l) + 1
	}
	flush()
	return b.String()
}
