package mergelogreceiver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

// podDir makes a kubelet-style pod log directory under root and returns it.
func podDir(t *testing.T, root, container string) string {
	t.Helper()
	dir := filepath.Join(root, "shop_cart-7d9f_0b7c-11ef", container)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	return dir
}

func criLine(sec int, stream, flag, log string) string {
	return fmt.Sprintf("2026-11-29T10:00:%02d.000000001Z %s %s %s\n", sec, stream, flag, log)
}

func containerConfig(root string) *Config {
	cfg := testConfig(root)
	cfg.Include = []string{filepath.Join(root, "*", "*", "*.log")}
	cfg.Format = FormatContainer
	return cfg
}

// recordsByBody indexes records with the attributes of their resource.
type podRecord struct {
	lr       plog.LogRecord
	resource map[string]any
}

func podRecords(s *testkit.LogsSink) map[string]podRecord {
	out := map[string]podRecord{}
	for _, ld := range s.Batches() {
		for _, rl := range ld.ResourceLogs().All() {
			res := rl.Resource().Attributes().AsRaw()
			for _, sl := range rl.ScopeLogs().All() {
				for _, lr := range sl.LogRecords().All() {
					out[lr.Body().AsString()] = podRecord{lr, res}
				}
			}
		}
	}
	return out
}

// CRI lines: the prefix is stripped, P pieces are joined, stdout and stderr are joined into
// multiline entries each on its own although their lines interleave, the runtime's time is the
// timestamp, and the pod's identity comes from the path.
func TestContainerCRI(t *testing.T) {
	root := t.TempDir()
	dir := podDir(t, root, "server")
	cfg := containerConfig(root)
	cfg.Multiline.LineStartPattern = `\S`
	testkit.WriteFile(t, filepath.Join(dir, "2.log"),
		criLine(1, "stdout", "F", "starting")+
			criLine(2, "stderr", "F", "java.lang.IllegalStateException: boom")+
			criLine(3, "stdout", "P", "a long line, ")+
			criLine(3, "stderr", "F", "\tat shop.Cart.add(Cart.java:42)")+
			criLine(4, "stdout", "P", "written in ")+
			criLine(4, "stderr", "F", "\tat shop.Main.main(Main.java:7)")+
			criLine(5, "stdout", "F", "three pieces")+
			criLine(6, "stderr", "F", "next error")+
			"not a runtime line\n"+
			criLine(7, "stdout", "F", "done"))
	s := &testkit.LogsSink{}
	startReceiver(t, cfg, s, nil)
	s.WaitForBodies(t, 6)
	got := podRecords(s)
	trace := "java.lang.IllegalStateException: boom\n\tat shop.Cart.add(Cart.java:42)\n\tat shop.Main.main(Main.java:7)"
	want := map[string]struct {
		stream string
		sec    int
	}{
		"starting":                             {"stdout", 1},
		trace:                                  {"stderr", 2},
		"a long line, written in three pieces": {"stdout", 3},
		"next error":                           {"stderr", 6},
		"done":                                 {"stdout", 7},
	}
	for body, w := range want {
		r, ok := got[body]
		if !assert.True(t, ok, "missing %q; got %v", body, s.Bodies()) {
			continue
		}
		assert.Equal(t, w.stream, r.lr.Attributes().AsRaw()[attrIOStream], body)
		assert.Equal(t, time.Date(2026, 11, 29, 10, 0, w.sec, 1, time.UTC), r.lr.Timestamp().AsTime(), body)
		assert.Equal(t, map[string]any{
			attrK8sNamespace: "shop", attrK8sPodName: "cart-7d9f", attrK8sPodUID: "0b7c-11ef",
			attrK8sContainer: "server", attrK8sRestartCount: int64(2),
		}, r.resource, body)
	}
	raw, ok := got["not a runtime line"]
	require.True(t, ok, "a line in neither format is passed on as it is")
	assert.Zero(t, raw.lr.Timestamp())
	assert.NotContains(t, raw.lr.Attributes().AsRaw(), attrIOStream)
	assert.Len(t, s.Bodies(), 6)
}

// Docker's json-file lines: the log is unescaped, its newline dropped, split lines joined.
func TestContainerDockerJSON(t *testing.T) {
	root := t.TempDir()
	dir := podDir(t, root, "web")
	cfg := containerConfig(root)
	line := func(log, stream string) string {
		return fmt.Sprintf(`{"log":%q,"stream":%q,"time":"2026-11-29T10:00:00.5Z"}`+"\n", log, stream)
	}
	testkit.WriteFile(t, filepath.Join(dir, "0.log"),
		line("GET /cart \"200\"\n", "stdout")+line("piece one, ", "stderr")+line("piece two\n", "stderr"))
	s := &testkit.LogsSink{}
	startReceiver(t, cfg, s, nil)
	s.WaitForBodies(t, 2)
	got := podRecords(s)
	assert.Equal(t, "stdout", got[`GET /cart "200"`].lr.Attributes().AsRaw()[attrIOStream])
	assert.Equal(t, "stderr", got["piece one, piece two"].lr.Attributes().AsRaw()[attrIOStream])
	assert.Equal(t, time.Date(2026, 11, 29, 10, 0, 0, 5e8, time.UTC), got["piece one, piece two"].lr.Timestamp().AsTime())
	assert.Equal(t, "web", got["piece one, piece two"].resource[attrK8sContainer])
}

// A split line longer than max_log_size: split makes the pieces collected so far a line of their
// own; truncate keeps max_log_size bytes of it.
func TestContainerPiecesBeyondMaxLogSize(t *testing.T) {
	for behavior, want := range map[LogSizeBehavior][]string{
		BehaviorSplit:    {"aaaaaaaaaabbbbbbbbbb", "cccccccccc", "after"},
		BehaviorTruncate: {"aaaaaaaaaabbbbbbbbbbcccc", "after"},
	} {
		t.Run(string(behavior), func(t *testing.T) {
			root := t.TempDir()
			dir := podDir(t, root, "c")
			cfg := containerConfig(root)
			cfg.MaxLogSize = 24
			cfg.MaxLogSizeBehavior = behavior
			testkit.WriteFile(t, filepath.Join(dir, "0.log"),
				criLine(1, "stdout", "P", strings.Repeat("a", 10))+criLine(1, "stdout", "P", strings.Repeat("b", 10))+
					criLine(1, "stdout", "F", strings.Repeat("c", 10))+criLine(2, "stdout", "F", "after"))
			s := &testkit.LogsSink{}
			startReceiver(t, cfg, s, nil)
			assert.Equal(t, want, s.WaitForBodies(t, len(want)))
		})
	}
}

// stdout and stderr interleave in one file: an entry of one stream delivered does not let the
// checkpoint pass an earlier entry of the other that is still open, so a restart loses nothing.
func TestContainerCheckpointWaitsForTheOtherStream(t *testing.T) {
	root := t.TempDir()
	dir := podDir(t, root, "server")
	path := filepath.Join(dir, "0.log")
	m := testkit.NewMemStorage()
	cfg, host := withStorage(containerConfig(root), m)
	cfg.Multiline.LineStartPattern = `\S`
	cfg.ForceFlushPeriod = time.Hour // the open stderr entry stays open
	testkit.WriteFile(t, path,
		criLine(1, "stderr", "F", "error begins")+
			criLine(2, "stdout", "F", "out one")+
			criLine(3, "stdout", "F", "out two")+
			criLine(4, "stdout", "F", "out three"))
	first := &testkit.LogsSink{}
	r := startReceiver(t, cfg, first, host)
	assert.Equal(t, []string{"out one", "out two"}, first.WaitForBodies(t, 2))
	require.NoError(t, r.Shutdown(context.Background()))

	testkit.AppendFile(t, path, criLine(5, "stderr", "F", "\tand goes on")+criLine(6, "stderr", "F", "second error"))
	cfg.ForceFlushPeriod = 50 * time.Millisecond
	second := &testkit.LogsSink{}
	startReceiver(t, cfg, second, host)
	second.WaitForBodies(t, 5)
	second.AssertNoMoreThan(t, 5, settle)
	// The stdout lines after the stderr entry's start come again (bounded duplicates); the
	// stderr entry comes whole, once.
	assertSameLines(t, []string{"error begins\n\tand goes on", "out one", "out two", "out three", "second error"}, second.Bodies())
}

// log.file.record_number goes on across a restart where it stopped.
func TestRecordNumbersSurviveRestart(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.log")
	testkit.WriteFile(t, a, numbered(0, 10))
	m := testkit.NewMemStorage()
	cfg, host := withStorage(testConfig(dir), m)
	cfg.IncludeFileRecordNumber = true
	first := &testkit.LogsSink{}
	r := startReceiver(t, cfg, first, host)
	first.WaitForBodies(t, 10)
	require.NoError(t, r.Shutdown(context.Background()))

	testkit.AppendFile(t, a, numbered(10, 13))
	second := &testkit.LogsSink{}
	startReceiver(t, cfg, second, host)
	second.WaitForBodies(t, 3)
	var numbers []int64
	for _, lr := range second.Records() {
		n, _ := lr.Attributes().Get(attrRecordNumber)
		numbers = append(numbers, n.Int())
	}
	assert.Equal(t, []int64{11, 12, 13}, numbers)
}

// Batches refused with a retryable error while both streams' entries are in them: every entry
// arrives once, in file order.
func TestContainerRetriesLoseNothing(t *testing.T) {
	root := t.TempDir()
	dir := podDir(t, root, "c")
	cfg := containerConfig(root)
	var lines strings.Builder
	for i := range 20 {
		stream := []string{"stdout", "stderr"}[i%2]
		lines.WriteString(criLine(i, stream, "F", fmt.Sprintf("line %02d", i)))
	}
	testkit.WriteFile(t, filepath.Join(dir, "0.log"), lines.String())
	cfg.Batch.MaxRecords = 3
	s := &testkit.LogsSink{Answer: func(_ context.Context, call int, _ plog.Logs) error {
		if call <= 3 {
			return errors.New("not yet")
		}
		return nil
	}}
	startReceiver(t, cfg, s, nil)
	got := s.WaitForBodies(t, 20)
	want := make([]string, 20)
	for i := range want {
		want[i] = fmt.Sprintf("line %02d", i)
	}
	assert.Equal(t, want, got)
}

// A runtime's line whose log is longer than max_log_size (the reader takes such lines whole, up
// to 64 KiB beyond it): split cuts it into entries of max_log_size, each with the line's time.
func TestContainerLogLongerThanMaxLogSize(t *testing.T) {
	root := t.TempDir()
	dir := podDir(t, root, "c")
	cfg := containerConfig(root)
	cfg.MaxLogSize = 10
	testkit.WriteFile(t, filepath.Join(dir, "0.log"), criLine(1, "stdout", "F", strings.Repeat("a", 25))+criLine(2, "stdout", "F", "after"))
	s := &testkit.LogsSink{}
	startReceiver(t, cfg, s, nil)
	assert.Equal(t, []string{"aaaaaaaaaa", "aaaaaaaaaa", "aaaaa", "after"}, s.WaitForBodies(t, 4))
	for i, lr := range s.Records() {
		sec := 1
		if i == 3 {
			sec = 2
		}
		assert.Equal(t, time.Date(2026, 11, 29, 10, 0, sec, 1, time.UTC), lr.Timestamp().AsTime(), lr.Body().Str())
	}
}
