package mergelogreceiver

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

var base = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// stamped is an entry text at base+offset.
func stamped(offset time.Duration, msg string) string {
	return base.Add(offset).Format("2006-01-02T15:04:05.000Z") + " " + msg
}

func mergeConfig(dir string, window time.Duration) *Config {
	cfg := testConfig(dir)
	cfg.Timestamp = &TimestampConfig{Format: "rfc3339"}
	cfg.Merge = MergeConfig{Enabled: true, Window: window, MaxHeldPerFile: 10000}
	return cfg
}

// Finished files (compressed, read to their end) merge exactly, however they interleave and
// however far one runs ahead of the others, without waiting for the window.
func TestMergeFinishedFilesExactly(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	const files, lines = 3, 2500
	var all []string
	for f := range files {
		var b strings.Builder
		at := time.Duration(0)
		for i := range lines {
			// Uneven steps, so that the files run ahead of each other in turn; some
			// instants repeat across files.
			at += time.Duration(rng.IntN(3000)) * time.Millisecond
			line := stamped(at, fmt.Sprintf("file %d entry %d %s", f, i, strings.Repeat("p", 40)))
			b.WriteString(line + "\n")
			all = append(all, line)
		}
		testkit.WriteFile(t, filepath.Join(dir, fmt.Sprintf("f%d.log.gz", f)), testkit.Compress(t, testkit.Gzip, []byte(b.String())))
	}
	cfg := mergeConfig(dir, time.Hour)
	cfg.Include = []string{filepath.Join(dir, "*.gz")}
	cfg.Merge.MaxHeldPerFile = 200 // a file that runs ahead waits for the others
	s := &testkit.LogsSink{}
	startReceiver(t, cfg, s, nil)

	got := s.WaitForBodies(t, files*lines)
	// Stable by instant, ties in the order the files were read: check instants only.
	assert.True(t, slices.IsSortedFunc(got, func(a, b string) int { return strings.Compare(a[:24], b[:24]) }),
		"entries out of timestamp order")
	assertSameLines(t, all, got)
}

// deliveries records when each body arrived.
type deliveries struct {
	mu sync.Mutex
	at map[string]time.Time
	in []string
}

func (d *deliveries) record(_ context.Context, _ int, ld plog.Logs) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	now := time.Now()
	for _, rl := range ld.ResourceLogs().All() {
		for _, lr := range rl.ScopeLogs().At(0).LogRecords().All() {
			d.at[lr.Body().Str()] = now
			d.in = append(d.in, lr.Body().Str())
		}
	}
	return nil
}

func (d *deliveries) order() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.in)
}

// A file that goes quiet delays the others by at most the window, and order holds.
func TestMergeQuietFileDelaysAtMostTheWindow(t *testing.T) {
	dir := t.TempDir()
	quiet, busy := filepath.Join(dir, "quiet.log"), filepath.Join(dir, "busy.log")
	testkit.WriteFile(t, quiet, stamped(0, "quiet")+"\n")
	testkit.WriteFile(t, busy, stamped(time.Second, "busy 0")+"\n")
	const window = 300 * time.Millisecond
	cfg := mergeConfig(dir, window)
	d := &deliveries{at: map[string]time.Time{}}
	s := &testkit.LogsSink{Answer: d.record}
	tel := componenttestTelemetry(t)
	startWith(t, tel.settings(), cfg, s, nil)

	written := map[string]time.Time{}
	for i := 1; i <= 5; i++ {
		line := stamped(time.Duration(1+i)*time.Second, fmt.Sprintf("busy %d", i))
		written[line] = time.Now()
		testkit.AppendFile(t, busy, line+"\n")
		time.Sleep(40 * time.Millisecond) // paces the writer: the test measures each line's delay
	}
	require.Eventually(t, func() bool { return len(d.order()) == 7 }, testkit.Timeout, 5*time.Millisecond)
	got := d.order()
	assert.True(t, slices.IsSorted(got), "ordered: %q", got)
	// Held for the window, plus a poll interval and a batch timeout of slack (and the
	// scheduling of a loaded test machine).
	for line, w := range written {
		delay := d.at[line].Sub(w)
		assert.GreaterOrEqual(t, delay, window-10*time.Millisecond, line)
		assert.Less(t, delay, window+250*time.Millisecond, line)
	}
	assert.Zero(t, tel.sum("otelcol_receiver_mergelog_entries_late", nil))
	m, err := tel.GetMetric("otelcol_receiver_mergelog_merge_hold_duration")
	require.NoError(t, err)
	assert.Equal(t, "s", m.Unit)
}

// A file that starts late, with instants before what already went out, and a file that goes
// back in time: their entries are released at once, counted as late, and nothing is lost.
func TestMergeLateStarterAndBackwardsFile(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.log"), filepath.Join(dir, "b.log")
	var lines []string
	for i := range 4 {
		lines = append(lines, stamped(time.Duration(10+i)*time.Second, "a"))
	}
	testkit.WriteFile(t, a, strings.Join(lines, "\n")+"\n")
	testkit.WriteFile(t, b, stamped(20*time.Second, "b")+"\n")
	cfg := mergeConfig(dir, 50*time.Millisecond)
	s := &testkit.LogsSink{}
	tel := componenttestTelemetry(t)
	startWith(t, tel.settings(), cfg, s, nil)
	s.WaitForBodies(t, 5)

	late := filepath.Join(dir, "late.log")
	testkit.WriteFile(t, late, stamped(time.Second, "late starter")+"\n")
	assert.Contains(t, s.WaitForBodies(t, 6), stamped(time.Second, "late starter"))
	testkit.AppendFile(t, a, stamped(5*time.Second, "a goes back")+"\n")
	assert.Contains(t, s.WaitForBodies(t, 7), stamped(5*time.Second, "a goes back"))
	tel.waitSum(t, "otelcol_receiver_mergelog_entries_late", 2)

	got := s.Bodies()
	assert.Len(t, got, 7, "nothing lost, nothing twice")
	assert.True(t, slices.IsSorted(got[:5]), "what came together is ordered: %q", got[:5])
}

// Entries without a timestamp stay next to the entry before them in their file.
func TestMergeUntimedEntriesFollowTheirPredecessor(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "a.log.gz"), testkit.Compress(t, testkit.Gzip, []byte(stamped(time.Second, "a1")+"\nno time a\n"+stamped(3*time.Second, "a3")+"\n")))
	testkit.WriteFile(t, filepath.Join(dir, "b.log.gz"), testkit.Compress(t, testkit.Gzip, []byte(stamped(2*time.Second, "b2")+"\n")))
	cfg := mergeConfig(dir, time.Hour)
	cfg.Include = []string{filepath.Join(dir, "*.gz")}
	s := &testkit.LogsSink{}
	startReceiver(t, cfg, s, nil)
	assert.Equal(t, []string{
		stamped(time.Second, "a1"), "no time a", stamped(2*time.Second, "b2"), stamped(3*time.Second, "a3"),
	}, s.WaitForBodies(t, 4))
}

// Live files with a backlog, held back by max_held_per_file across polls, are read to their
// end: the tracker hands a file out again only for data beyond what it has buffered, so the
// receiver keeps reading a file until io.EOF whatever the polls say.
func TestMergeLiveBacklogIsReadToTheEnd(t *testing.T) {
	dir := t.TempDir()
	const files, lines = 3, 6000
	var all []string
	for f := range files {
		var b strings.Builder
		for i := range lines {
			// Instants wrap around every 500 lines: the files go back in time too.
			line := stamped(time.Duration(i%500)*time.Second, fmt.Sprintf("file %d entry %d %s", f, i, strings.Repeat("p", 60)))
			b.WriteString(line + "\n")
			all = append(all, line)
		}
		testkit.WriteFile(t, filepath.Join(dir, fmt.Sprintf("f%d.log", f)), b.String())
	}
	cfg := mergeConfig(dir, 20*time.Millisecond)
	cfg.Merge.MaxHeldPerFile = 500
	s := &testkit.LogsSink{}
	startReceiver(t, cfg, s, nil)
	assertSameLines(t, all, s.WaitForBodies(t, files*lines))
}

// Seven live files written while they are read, in uneven chunks that often end mid-line, with
// a short window and a small max_held_per_file: every entry is delivered, once.
func TestMergeLiveFilesWrittenWhileReadDeliverEverything(t *testing.T) {
	dir := t.TempDir()
	const files, lines = 7, 3000
	rng := rand.New(rand.NewPCG(3, 4))
	texts := make([]string, files)
	var all []string
	for f := range files {
		var b strings.Builder
		for i := range lines {
			line := stamped(time.Duration(i*files+f)*time.Millisecond, fmt.Sprintf("file %d entry %d %s", f, i, strings.Repeat("p", 1+rng.IntN(80))))
			b.WriteString(line + "\n")
			all = append(all, line)
		}
		texts[f] = b.String()
		testkit.WriteFile(t, filepath.Join(dir, fmt.Sprintf("f%d.log", f)), "")
	}
	cfg := mergeConfig(dir, 30*time.Millisecond)
	cfg.Merge.MaxHeldPerFile = 50
	cfg.Batch.MaxRecords = 300
	cfg.ForceFlushPeriod = time.Hour // a line cut by a chunk may wait long for its end on a busy machine
	s := &testkit.LogsSink{}
	startReceiver(t, cfg, s, nil)
	offsets := make([]int, files)
	for done := 0; done < files; {
		done = 0
		for f := range files {
			n := min(len(texts[f])-offsets[f], 1+rng.IntN(16<<10))
			if n == 0 {
				done++
				continue
			}
			testkit.AppendFile(t, filepath.Join(dir, fmt.Sprintf("f%d.log", f)), texts[f][offsets[f]:offsets[f]+n])
			offsets[f] += n
		}
		time.Sleep(time.Duration(rng.IntN(3)) * time.Millisecond) // paces the writer: chunks land between polls
	}
	assertSameLines(t, all, s.WaitForBodies(t, files*lines))
	s.AssertNoMoreThan(t, files*lines, settle, "nothing twice")
	assert.Len(t, s.Bodies(), files*lines, "nothing twice")
}
