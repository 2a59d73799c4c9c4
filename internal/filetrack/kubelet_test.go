package filetrack

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

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
	size    int64    // of 0.log
	written []string // every line, in order
	stamp   int
	ops     []func() // the rotation under way
	trace   *[]string
}

func (k *kubeletDir) note(format string, args ...any) {
	if k.trace != nil {
		*k.trace = append(*k.trace, k.tag+": "+fmt.Sprintf(format, args...))
	}
}

func newKubeletDir(t *testing.T, root, tag string, maxSize int64, maxFiles int) *kubeletDir {
	t.Helper()
	k := &kubeletDir{t: t, dir: filepath.Join(root, "ns_pod-"+tag+"_uid", "app"), tag: tag, maxSize: maxSize, maxFiles: maxFiles}
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
	k.live, k.size = f, 0
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
	k.note("write %d lines, to %d", n, len(k.written))
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
	k.ops = append(k.ops, func() { k.note("rename 0.log to %s", filepath.Base(to)); must(k.t, os.Rename(k.path("0.log"), to)) },
		func() { k.note("reopen"); k.reopen() })
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
	return func() { k.note("remove %s", filepath.Base(p)); must(k.t, os.Remove(p)) }
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
			k.note("half of %s", filepath.Base(tmp))
		},
		func() { testkit.AppendFile(k.t, tmp, gz[len(gz)/2:]); k.note("rest of %s", filepath.Base(tmp)) },
		func() { k.note("rename %s to .gz", filepath.Base(tmp)); must(k.t, os.Rename(tmp, p+".gz")) },
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

// TestKubeletRotationRandom writes and rotates two containers' logs as a node does while the
// tracker polls between any two file operations, reading some of each file handed out or
// not reading at all (deliveries blocked), with few or many descriptors, full listings or
// narrow polls: every line is read once.
func TestKubeletRotationRandom(t *testing.T) {
	for seed := range uint64(32) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			fds := []int{1, 2, 3, 1024}[seed%4]
			probeIn(t, func(dir string) Options {
				o := kubeletOptions(dir)
				o.MaxConcurrentFiles = fds
				return o
			}, func(t *testing.T, h *harness, fullScan func()) {
				kubeletRandom(t, h, rand.New(rand.NewPCG(seed, 7)), fullScan)
			})
		})
	}
}

func kubeletRandom(t *testing.T, h *harness, rng *rand.Rand, fullScan func()) {
	dirs := []*kubeletDir{newKubeletDir(t, h.dir, "a", 4<<10, 4), newKubeletDir(t, h.dir, "b", 4<<10, 4)}
	var trace []string
	for _, k := range dirs {
		k.trace = &trace
	}
	defer func() {
		if t.Failed() {
			t.Log(strings.Join(trace, "\n"))
			for _, e := range h.logs.All() {
				t.Log(e.Level, e.Message, e.ContextMap())
			}
		}
	}()
	for range 400 {
		k := dirs[rng.IntN(len(dirs))]
		switch rng.IntN(9) {
		case 0, 1:
			k.write(1 + rng.IntN(20))
		case 2, 3:
			k.step()
		case 4, 5:
			for _, f := range h.tr.Poll() {
				h.readSome(f, 1+rng.IntN(30))
				trace = append(trace, fmt.Sprintf("  read %d %s to %d", f.ID(), f.Path()[len(h.dir):], f.Offset()))
			}
		case 6:
			trace = append(trace, "  full scan")
			fullScan()
		default:
			trace = append(trace, "  holding poll")
			h.tr.PollHolding()
		}
	}
	for _, k := range dirs {
		for k.step() {
		}
	}
	fullScan()
	h.rounds(forgetPolls + 5)
	var want [][]string
	for _, k := range dirs {
		want = append(want, k.written)
	}
	if lost := h.tr.Stats().BytesLost; lost != 0 {
		t.Logf("bytes lost %d", lost)
	}
	h.expect(want...)
}
