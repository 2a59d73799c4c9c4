package e2e

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

// TestFaultsOutageLongerThanKubeletKeeps stops the gateway for longer than kubelet keeps a busy
// container's rotated files: the writer rotates k.log as kubelet does (moved to k.log.N, out of
// the receiver's glob, gzipped one rotation later, deleted beyond 2 rotated files) every 250
// entries, about every 0.6 s, so that during the 8 s outage it rotates through far more files
// than it keeps, and each is deleted before a blocked agent could have read it. The agent's
// exporter is the shipped agent's (no sending queue, retrying forever), so ConsumeLogs blocks
// all along. The receiver parks its batch and goes on polling: it opens each new k.log while
// it is there and holds the rotated ones open once deleted, so that when the gateway returns
// every entry arrives, once, and nothing is counted lost.
func TestFaultsOutageLongerThanKubeletKeeps(t *testing.T) {
	needCollector(t)
	const outage, keep = 8 * time.Second, 2
	rng := faultRand(t)
	dir, logs := faultDirs(t)
	grpcPort, promPort := freePort(t), freePort(t)
	b := &runSeries{t: t, dir: dir, config: func(out string) string { return sinkConfig(grpcPort, out) }}
	b.start()
	// The glob matches only the live file: the receiver follows a rotated one by its inode.
	a := startCollector(t, testkit.WriteFile(t, filepath.Join(dir, "a.yaml"), kubeletAgentConfig(dir, grpcPort, promPort, "k.log")))
	w := startKubeletWriter(t, logs, "k.log", "k", "kubelet", 400, 250, keep+1) // keep rotated files and the live one
	testkit.WaitUntil(t, 30*time.Second, "records at the gateway", func() bool { return len(bodies(t, b.outs[0])) >= 200 })
	time.Sleep(between(rng, 0, time.Second))

	b.end(syscall.SIGTERM)
	down := time.Now()
	// The rotated files seen on disk during the outage, watched from outside the writer.
	seen := map[string]bool{}
	for time.Since(down) < outage {
		paths, err := filepath.Glob(filepath.Join(logs, "k.log.*"))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			seen[strings.TrimSuffix(p, ".gz")] = true
		}
		time.Sleep(50 * time.Millisecond)
	}
	if len(seen) <= 2*keep {
		t.Fatalf("only %d rotated files during the outage: the test needs more than kubelet keeps (%d)", len(seen), keep)
	}
	select {
	case <-a.exited:
		t.Fatalf("the agent ended during the outage: %v; output:\n%s", a.cmd.ProcessState, a.out.String())
	default:
	}

	b.start()
	back := time.Now()
	time.Sleep(time.Second)
	w.finish(t)
	tl := deliveredOnce(t, a, []*logWriter{w}, b, promPort)
	report(t, "outage longer than kubelet keeps: gateway down %s while the writer wrote %d/s and rotated through %d files (kubelet keeps %d); %s; caught up %s after the gateway returned",
		back.Sub(down).Round(100*time.Millisecond), w.rate, len(seen), keep, tl, time.Since(back).Round(100*time.Millisecond))
}

// TestFaultsKubeletRotationShippedGlobs rotates fast, as kubelet does (renamed, reopened, the
// rotated file gzipped through <name>.tmp at the next rotation, kept at 5 files, the live one
// included), while the agent reads with the shipped agent's globs, which match the rotated
// files and kubelet's .tmp too, and 4 batches in flight (the agent ships 2; more in flight, more
// to lose): every entry arrives once, nothing counted lost. Kubelet deletes and creates files at
// every rotation, so inodes are reused at once (ext4): the agent once took a new 0.log for a
// pruned .gz moved, and skipped it.
func TestFaultsKubeletRotationShippedGlobs(t *testing.T) {
	needCollector(t)
	dir, logs := faultDirs(t)
	grpcPort, promPort := freePort(t), freePort(t)
	b := &runSeries{t: t, dir: dir, config: func(out string) string { return sinkConfig(grpcPort, out) }}
	b.start()
	cfg := kubeletAgentConfig(dir, grpcPort, promPort, "*.log", "*.log.*")
	a := startCollector(t, testkit.WriteFile(t, filepath.Join(dir, "a.yaml"), cfg))
	ws := []*logWriter{
		startKubeletWriter(t, logs, "k.log", "k", "kubelet", 2000, 250, 5),
		startKubeletWriter(t, logs, "j.log", "j", "kubelet", 1000, 120, 5),
	}
	time.Sleep(8 * time.Second)
	for _, w := range ws {
		w.finish(t)
	}
	tl := deliveredOnce(t, a, ws, b, promPort)
	report(t, "kubelet's rotation with the shipped globs: %d and %d rotations (kept 5 files, gzipped through .tmp); %s",
		ws[0].rotations, ws[1].rotations, tl)
}

// deliveredOnce waits until the (finished) writers' entries are delivered, stops the agent and
// the gateway, and checks that every entry arrived once, whole, with nothing counted lost.
func deliveredOnce(t *testing.T, a *collector, ws []*logWriter, b *runSeries, promPort int) *tally {
	t.Helper()
	_, tl := waitDelivered(t, a, ws, b.outs, 2*time.Second, 2*time.Minute)
	final := scrape(t, promPort)
	a.stop(t)
	b.end(syscall.SIGTERM)
	checkEntries(t, tl)
	if tl.dups > 0 {
		t.Errorf("%d records duplicated", tl.dups)
	}
	if n := final.sum("otelcol_receiver_mergelog_bytes_lost"); n != 0 {
		t.Errorf("%v bytes counted lost", n)
	}
	return tl
}

// kubeletAgentConfig is the agent of the kubelet tests, reading includes (names in dir/logs);
// its exporter and batches are the shipped agent's.
func kubeletAgentConfig(dir string, grpcPort, promPort int, includes ...string) string {
	paths := make([]string, len(includes))
	for i, inc := range includes {
		paths[i] = strconv.Quote(filepath.Join(dir, "logs", inc))
	}
	return fmt.Sprintf(`
extensions:
  file_storage:
    directory: %[1]q
    create_directory: true
receivers:
  mergelog:
    include: [%[2]s]
    start_at: beginning
    poll_interval: 100ms
    storage: file_storage
    max_deleted_bytes: 1GiB
    batch:
      max_in_flight: 4
      max_records: %[3]d
exporters:
%[4]s
service:
  extensions: [file_storage]
%[5]s
  pipelines:
    logs:
      receivers: [mergelog]
      exporters: [otlp_grpc/blocking]
`, filepath.Join(dir, "storage"), strings.Join(paths, ", "), faultBatch,
		blockingExporter(grpcPort), promTelemetry(promPort))
}

// kubeletRotate rotates f's file in kubelet's order (pkg/kubelet/logs rotateLog): the oldest
// rotated files beyond kubelet-2 removed, the plain rotated file compressed through
// <name>.tmp (written as gzip writes it, so a reader may see it half written; then renamed to
// <name>.gz and the plain file removed), then the file renamed and reopened.
func (w *logWriter) kubeletRotate(f *os.File) (*os.File, string, error) {
	for len(w.rotated) > max(w.kubelet-2, 0) {
		for _, p := range []string{w.rotated[0], w.rotated[0] + ".gz"} {
			if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
				return f, "", err
			}
		}
		w.rotated = w.rotated[1:]
	}
	if w.plain != "" && slices.Contains(w.rotated, w.plain) {
		if err := gzipFile(w.plain, ".tmp"); err != nil {
			return f, "", err
		}
	}
	w.rotations++
	rotated := w.path + "." + strconv.Itoa(w.rotations)
	if err := os.Rename(w.path, rotated); err != nil {
		return f, rotated, err
	}
	w.plain, w.rotated = rotated, append(w.rotated, rotated)
	if err := f.Close(); err != nil {
		return nil, rotated, err
	}
	f, err := os.OpenFile(w.path, os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND, 0o644)
	return f, rotated, err
}
