package mergelogreceiver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/mergelog/otelcol-mergelog/internal/filetrack"
	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

// Issue 12's memory budget: a tracked file holds at most idlePerFile between its read rounds
// (beyond fixedHeap, what does not grow with the file count: the batches being sent, the
// telemetry), and a catch-up holds at most catchUpHeap beyond workBuffers buffers of
// max_log_size, however many files are behind.
const (
	idlePerFile = 8 << 10
	fixedHeap   = 8 << 20
	catchUpHeap = 64 << 20
	// The read round's line reader, and one for each compressed file being decoded.
	workBuffers = 1 + filetrack.DefaultMaxConcurrentDecoders
)

// heapSink counts the records it accepts, keeping none, and measures the live heap each time
// the count passes a step: samples at points of the reading, however fast the machine.
type heapSink struct {
	step int64

	mu      sync.Mutex
	records int64
	next    int64
	most    uint64 // the largest sample
	samples int
}

var _ consumer.Logs = (*heapSink)(nil)

func (s *heapSink) Capabilities() consumer.Capabilities { return consumer.Capabilities{} }

func (s *heapSink) ConsumeLogs(_ context.Context, ld plog.Logs) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.records += int64(ld.LogRecordCount())
	if s.step > 0 && s.records >= s.next {
		s.next = s.records + s.step
		s.most = max(s.most, testkit.LiveHeap())
		s.samples++
	}
	return nil
}

// peak returns the largest sample above before, and how many samples were taken.
func (s *heapSink) peak(before uint64) (most int64, samples int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return int64(s.most) - int64(before), s.samples
}

func (s *heapSink) count() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.records
}

func (s *heapSink) waitFor(t *testing.T, n int64) {
	t.Helper()
	// Hundreds of MiB read under the race detector on a busy machine: a bound for hangs only.
	testkit.WaitUntil(t, 4*testkit.Timeout, fmt.Sprintf("%d records", n), func() bool { return s.count() >= n })
}

// splitLineFiles writes files container files under root, each holding one line of pieces ×
// pieceLen bytes split by the runtime.
func splitLineFiles(t *testing.T, root string, files, pieces, pieceLen int) {
	t.Helper()
	piece := strings.Repeat("x", pieceLen)
	for i := range files {
		dir := filepath.Join(root, fmt.Sprintf("ns_pod%d_uid%d", i, i), "app")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for p := range pieces {
			flag := "P"
			if p == pieces-1 {
				flag = "F"
			}
			// Each file's own first bytes: files alike would be taken for copies of one.
			b.WriteString(criLine(1, "stdout", flag, fmt.Sprintf("%04d", i)+piece[4:]))
		}
		testkit.WriteFile(t, filepath.Join(dir, "0.log"), b.String())
	}
}

// A stream that once joined a long split line does not keep its size: 200 container files
// that each held one 800 KiB line in 50 pieces, then idle, cost a few KiB each (issue 12:
// 175 MiB).
func TestMemoryIdleAfterLongSplitLines(t *testing.T) {
	const files = 200
	root := t.TempDir()
	splitLineFiles(t, root, files, 50, 16<<10)
	cfg := containerConfig(root)
	cfg.Encoding = EncodingNop // as below
	cfg.PollInterval = 100 * time.Millisecond
	s := &heapSink{}
	before := testkit.LiveHeap()
	startReceiver(t, cfg, s, nil)
	s.waitFor(t, files)
	time.Sleep(settle) // a few polls, idle
	grown := int64(testkit.LiveHeap()) - int64(before)
	t.Logf("%d idle container files after a line of 800 KiB each: %d KiB of heap", files, grown>>10)
	if grown > files*idlePerFile+fixedHeap {
		t.Errorf("%d idle files hold %d KiB, more than %d KiB each", files, grown>>10, idlePerFile>>10)
	}
}

// A catch-up of 200 container files, each one 800 KiB line in 50 pieces already on disk, holds
// the pieces of one line at a time, not one in every file: a read round finishes the line it
// is in before going on to the next file (issue 20: 200 lines of ~1 MiB held at once, 465 MiB
// of RSS under GOMEMLIMIT=400MiB).
func TestMemoryCatchUpSplitLinesBounded(t *testing.T) {
	const files = 200
	root := t.TempDir()
	splitLineFiles(t, root, files, 50, 16<<10)
	cfg := containerConfig(root)
	cfg.Encoding = EncodingNop
	cfg.PollInterval = 200 * time.Millisecond
	s := &heapSink{step: files / 20}
	before := testkit.LiveHeap()
	startReceiver(t, cfg, s, nil)
	s.waitFor(t, files)
	most, samples := s.peak(before)
	budget := int64(catchUpHeap + workBuffers*int(cfg.MaxLogSize))
	t.Logf("catch-up of %d split lines: at most %d KiB of live heap in %d samples (budget %d KiB)",
		files, most>>10, samples, budget>>10)
	if most > budget {
		t.Errorf("catch-up of %d split lines held %d KiB, over the budget of %d KiB", files, most>>10, budget>>10)
	}
}

// A catch-up of 1 000 files, each longer than a read round takes of it, holds no buffer per
// file that waits for its turn: the live heap stays within the budget while every file is
// behind, and within idlePerFile a file once all is read (issue 12: a 256 KiB buffer for each
// file behind, about 256 MiB at 1 024 files).
func TestMemoryCatchUpBounded(t *testing.T) {
	const files, lineLen = 1000, 16 << 10
	linesPerFile := chunkBytes/lineLen + 8 // more than a round reads
	dir := t.TempDir()
	line := strings.Repeat("y", lineLen-1) + "\n"
	body := strings.Repeat(line, linesPerFile)
	for i := range files {
		// Each file's own first bytes: files alike would be taken for copies of one.
		testkit.WriteFile(t, filepath.Join(dir, fmt.Sprintf("f%04d.log", i)), fmt.Sprintf("%04d", i)+body[4:])
	}
	total := int64(files * linesPerFile)
	cfg := testConfig(dir)
	cfg.Merge.Enabled = false
	// Spare the race detector the bytes' checks, and the reading polls of 1 000 files every
	// 10ms: what is measured is the reading.
	cfg.Encoding = EncodingNop
	cfg.PollInterval = 200 * time.Millisecond
	s := &heapSink{step: total / 20}
	before := testkit.LiveHeap()
	startReceiver(t, cfg, s, nil)
	s.waitFor(t, total)
	time.Sleep(settle) // a few polls, idle
	idle := int64(testkit.LiveHeap()) - int64(before)

	most, samples := s.peak(before)
	budget := int64(catchUpHeap + workBuffers*int(cfg.MaxLogSize))
	t.Logf("catch-up of %d files: at most %d KiB of live heap in %d samples (budget %d KiB); idle after: %d KiB",
		files, most>>10, samples, budget>>10, idle>>10)
	if most > budget {
		t.Errorf("catch-up of %d files held %d KiB, over the budget of %d KiB", files, most>>10, budget>>10)
	}
	if idle > files*idlePerFile+fixedHeap {
		t.Errorf("%d idle files hold %d KiB, more than %d KiB each", files, idle>>10, idlePerFile>>10)
	}
}
