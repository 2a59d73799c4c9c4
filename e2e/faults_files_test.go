package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

// TestFaultsManyFiles runs the collector under `ulimit -n 1024` with max_concurrent_files 256
// and gives it 10 000 files of 3 lines at once: every line must arrive, once, with no
// descriptor error, and the process's descriptors, sampled every 10 ms from /proc, must stay
// within what it held before the files came plus max_concurrent_files.
func TestFaultsManyFiles(t *testing.T) {
	needCollector(t)
	const files, perFile, limit, maxOpen = 10000, 3, 1024, 256
	dir, logs := faultDirs(t)
	out := filepath.Join(dir, "out.jsonl")
	cfg := testkit.WriteFile(t, filepath.Join(dir, "config.yaml"), fmt.Sprintf(`
extensions:
  file_storage:
    directory: %[1]q
    create_directory: true
    compaction:
      directory: %[1]q
receivers:
  mergelog:
    include: [%[2]q]
    start_at: beginning
    max_concurrent_files: %[4]d
    storage: file_storage
exporters:
  file:
    path: %[3]q
    rotation:
      max_megabytes: 1024
service:
  extensions: [file_storage]
  telemetry:
    logs:
      level: warn
    metrics:
      level: none
  pipelines:
    logs:
      receivers: [mergelog]
      exporters: [file]
`, filepath.Join(dir, "storage"), filepath.Join(logs, "*.log"), out, maxOpen))
	// bash sets the soft and the hard limit, so the Go runtime cannot raise the soft one.
	c := startCollectorVia(t, []string{"bash", "-c", fmt.Sprintf(`ulimit -n %d && exec "$0" "$@"`, limit)}, cfg)
	pid := c.cmd.Process.Pid

	// Once a first file is read the collector is up: what it holds then is its baseline.
	testkit.WriteFile(t, filepath.Join(logs, "ready.log"), "ready\n")
	waitRecords(t, c, out, 1)
	checkLimit(t, pid, limit)
	baseline := 0
	for range 30 {
		baseline = max(baseline, fdCount(pid))
		time.Sleep(10 * time.Millisecond)
	}
	var peak atomic.Int64
	stopSampling, sampled := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			if n := int64(fdCount(pid)); n > peak.Load() {
				peak.Store(n)
			}
			select {
			case <-stopSampling:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()

	began := time.Now()
	for i := range files {
		var b strings.Builder
		for l := range perFile {
			fmt.Fprintf(&b, "file=%05d line=%d %s\n", i, l, strings.Repeat("x", 10+i%50))
		}
		testkit.WriteFile(t, filepath.Join(logs, fmt.Sprintf("f%05d.log", i)), b.String())
	}
	wrote := time.Since(began)
	var recs []string
	testkit.WaitUntil(t, 3*time.Minute, "every line", func() bool {
		recs = bodies(t, out)
		return len(recs) >= 1+files*perFile
	})
	took := time.Since(began)
	close(stopSampling)
	<-sampled
	c.stop(t)

	seen := map[[2]int]int{}
	line := regexp.MustCompile(`^file=(\d{5}) line=(\d) x+$`)
	for _, r := range recs {
		if r == "ready" {
			continue
		}
		m := line.FindStringSubmatch(r)
		if m == nil {
			t.Errorf("unexpected record %q", r)
			continue
		}
		f, _ := strconv.Atoi(m[1])
		l, _ := strconv.Atoi(m[2])
		seen[[2]int{f, l}]++
	}
	dups := 0
	for k, n := range seen {
		if n > 1 {
			dups += n - 1
			t.Errorf("file %05d line %d came %d times", k[0], k[1], n)
		}
	}
	if len(seen) != files*perFile {
		t.Errorf("%d distinct lines, want %d", len(seen), files*perFile)
	}
	if out := c.out.String(); strings.Contains(out, "too many open files") {
		_, first, _ := strings.Cut(out, "too many open files")
		first, _, _ = strings.Cut(first, "\n")
		t.Errorf("descriptors ran out %d times: …too many open files%s", strings.Count(out, "too many open files"), first)
	}
	// The receiver's bound covers every descriptor it opens (fingerprint reads included);
	// one more is the directory its glob is listing.
	if p := int(peak.Load()); p > baseline+maxOpen+1 || p >= limit {
		t.Errorf("peak of %d descriptors: more than the %d before the files came + max_concurrent_files %d + 1", p, baseline, maxOpen)
	}
	report(t, "10 000 files: %d files × %d lines under ulimit -n %d, max_concurrent_files %d: %d of %d lines read, %d duplicated; descriptors %d before, peak %d; written in %s, all read %s after the first was written",
		files, perFile, limit, maxOpen, len(seen), files*perFile, dups, baseline, peak.Load(),
		wrote.Round(100*time.Millisecond), took.Round(100*time.Millisecond))
}

// fdCount is the number of descriptors process pid has open (0 once it is gone).
func fdCount(pid int) int {
	fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	return len(fds)
}

// checkLimit checks that process pid runs with the soft and hard descriptor limit n.
func checkLimit(t *testing.T, pid, n int) {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/limits", pid))
	if err != nil {
		t.Fatal(err)
	}
	want := regexp.MustCompile(fmt.Sprintf(`(?m)^Max open files\s+%d\s+%d\s`, n, n))
	if !want.Match(b) {
		t.Fatalf("the collector does not run with a limit of %d descriptors:\n%s", n, b)
	}
}
