package mergelogreceiver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"go.opentelemetry.io/collector/receiver/receivertest"

	"github.com/mergelog/otelcol-mergelog/internal/filetrack"
	"github.com/mergelog/otelcol-mergelog/internal/filetrack/checkpoint"
	"github.com/mergelog/otelcol-mergelog/internal/testkit"
	"github.com/mergelog/otelcol-mergelog/receiver/mergelogreceiver/internal/metadata"
)

// Writes follow what changed: with 1 000 files tracked and a steady trickle into ten of them,
// each write carries those ten identities (and the index only when files come or go), not the
// whole checkpoint, which the receiver rewrote on every accepted batch before.
func TestCheckpointWritesAreProportionalToWhatChanged(t *testing.T) {
	dir := t.TempDir()
	const files = 1000
	for i := range files {
		testkit.WriteFile(t, filepath.Join(dir, fmt.Sprintf("f%04d.log", i)), fmt.Sprintf("file %d starts here with its own bytes\n", i))
	}
	m := testkit.NewMemStorage()
	cfg, host := withStorage(testConfig(dir), m)
	cfg.PollInterval = 50 * time.Millisecond
	s := &testkit.CountingSink{}
	startReceiver(t, cfg, s, host)
	testkit.WaitUntil(t, testkit.Timeout, "the first line of every file", func() bool { return s.Records() >= files })
	testkit.WaitUntil(t, testkit.Timeout, "the checkpoint of every file", func() bool {
		return len(m.Keys()) > files // a key per identity, and the index
	})

	sets0, bytes0 := m.Writes()
	whole := wholeCheckpointSize(t, m)
	const rounds = 20
	for r := range rounds {
		for i := range 10 {
			testkit.AppendFile(t, filepath.Join(dir, fmt.Sprintf("f%04d.log", i*100)), fmt.Sprintf("trickle %d\n", r))
		}
		want := int64(files + 10*(r+1))
		testkit.WaitUntil(t, testkit.Timeout, "the trickle", func() bool { return s.Records() >= want })
	}
	testkit.WaitUntil(t, testkit.Timeout, "the last trickle checkpointed", func() bool {
		n, _ := m.Writes()
		return n > sets0
	})
	sets, written := m.Writes()
	sets, written = sets-sets0, written-bytes0
	perWrite := written / max(sets, 1)
	t.Logf("%d files: %d Sets, %d bytes in %d rounds (%d a Set); the whole checkpoint is %d bytes",
		files, sets, written, rounds, perWrite, whole)
	// Each Set is one identity: a fraction of the whole checkpoint, which is ~files times it.
	assert.Less(t, perWrite*50, whole, "a write is proportional to what changed")
	// Before, every accepted batch rewrote the whole checkpoint: at least rounds × whole here.
	assert.Less(t, written, 2*whole, "the %d rounds wrote less than two whole checkpoints", rounds)
}

// wholeCheckpointSize is the size of the checkpoint as one key, as releases before kept it.
func wholeCheckpointSize(t *testing.T, m *testkit.MemStorage) int {
	t.Helper()
	tr, err := filetrack.New(filetrack.Options{Include: []string{"/nonexistent/*"}})
	require.NoError(t, err)
	defer func() { require.NoError(t, tr.Close()) }()
	store := checkpointStore{client: m, logger: zap.NewNop()}
	require.NoError(t, store.restore(context.Background(), tr))
	return len(tr.Checkpoint())
}

// An agent upgraded in place finds the checkpoint of the release before (one key, version 2):
// it resumes from it, writes it in the new layout and deletes the old key.
func TestCheckpointOfTheReleaseBeforeIsCarriedOver(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.log")
	testkit.WriteFile(t, a, numbered(0, 10))
	// The release before: the whole checkpoint under one key.
	old := testkit.NewMemStorage()
	{
		tr, err := filetrack.New(filetrack.Options{Include: []string{filepath.Join(dir, "*.log")}, StartAtBeginning: true})
		require.NoError(t, err)
		for _, f := range tr.Poll() {
			for {
				_, end, err := f.Next()
				if err != nil {
					break
				}
				tr.Commit(f.ID(), end, 0)
			}
		}
		require.NoError(t, old.Set(context.Background(), legacyKey, tr.Checkpoint()))
		require.NoError(t, tr.Close())
	}
	cfg, host := withStorage(testConfig(dir), old)
	s := &testkit.LogsSink{}
	r := startReceiver(t, cfg, s, host)
	testkit.AppendFile(t, a, numbered(10, 12))
	assert.Equal(t, wantLines(10, 12), s.WaitForBodies(t, 2), "resumed where the release before stopped")
	require.NoError(t, r.Shutdown(context.Background()))
	_, legacy := old.Value(legacyKey)
	_, index := old.Value(indexKey)
	assert.False(t, legacy, "the old key is gone")
	assert.True(t, index, "the new layout is written")

	// And the new layout restores.
	again := &testkit.LogsSink{}
	startReceiver(t, cfg, again, host)
	testkit.AppendFile(t, a, numbered(12, 13))
	assert.Equal(t, wantLines(12, 13), again.WaitForBodies(t, 1))
}

func TestStartFailsOnACorruptCheckpointIndex(t *testing.T) {
	for name, data := range map[string]map[string][]byte{
		"index":       {indexKey: []byte("garbage")},
		"missing key": {indexKey: checkpoint.EncodeIndex([]uint64{7})},
		"wrong key":   {indexKey: checkpoint.EncodeIndex([]uint64{7}), keyOf(7): []byte("garbage")},
	} {
		t.Run(name, func(t *testing.T) {
			m := testkit.NewMemStorage()
			for k, v := range data {
				require.NoError(t, m.Set(context.Background(), k, v))
			}
			cfg, host := withStorage(testConfig(t.TempDir()), m)
			r, err := NewFactory().CreateLogs(context.Background(), receivertest.NewNopSettings(metadata.Type), cfg, &testkit.CountingSink{})
			require.NoError(t, err)
			require.ErrorContains(t, r.Start(context.Background(), host), "restoring the checkpoint")
			require.NoError(t, r.Shutdown(context.Background()))
		})
	}
}

// A line cut at max_log_size is committed only once it ends: a stop after its first piece went
// out, while the rest was not yet written, resumes at the line's start, so the rest is not read
// as a line of its own (which truncate would have dropped) and nothing of the line is lost; the
// first piece may come twice.
func TestCutLineCommitsAtItsEndOnly(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.log")
	testkit.WriteFile(t, a, "short\n"+strings.Repeat("x", 13)) // a long line still being written
	m := testkit.NewMemStorage()
	cfg, host := withStorage(testConfig(dir), m)
	cfg.MaxLogSize = 10
	cfg.MaxLogSizeBehavior = BehaviorTruncate
	cfg.ForceFlushPeriod = time.Hour
	first := &testkit.LogsSink{}
	r := startReceiver(t, cfg, first, host)
	assert.Equal(t, []string{"short", strings.Repeat("x", 10)}, first.WaitForBodies(t, 2))
	require.NoError(t, r.Shutdown(context.Background()))

	testkit.AppendFile(t, a, "xx\nafter\n")
	again := &testkit.LogsSink{}
	startReceiver(t, cfg, again, host)
	got := again.WaitForBodies(t, 2)
	assert.Equal(t, []string{strings.Repeat("x", 10), "after"}, got,
		"the cut line again from its start (its first piece twice), its rest dropped as truncate says")
}

// With line_end_pattern and truncate, what truncation drops (the rest of a cut line, whole
// lines past max_log_size) is committed with its entry: delete_after_read fires, and a restart
// emits nothing again. (Issue 12 item 5 reported the opposite; this case does not reproduce it
// on this session's main nor on the one before: the test pins the behaviour.)
func TestTruncatedEndPatternEntryIsCommittedWhole(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.log")
	testkit.WriteFile(t, a, "one\n"+strings.Repeat("y", 30)+"\nmore\nEND\ntwo\nEND\n")
	m := testkit.NewMemStorage()
	cfg, host := withStorage(testConfig(dir), m)
	cfg.MaxLogSize = 10
	cfg.MaxLogSizeBehavior = BehaviorTruncate
	cfg.Multiline.LineEndPattern = "END"
	first := &testkit.LogsSink{}
	r := startReceiver(t, cfg, first, host)
	assert.Equal(t, []string{"one\nyyyyyy", "two\nEND"}, first.WaitForBodies(t, 2))
	require.NoError(t, r.Shutdown(context.Background()))

	again := &testkit.LogsSink{}
	startReceiver(t, cfg, again, host)
	testkit.AppendFile(t, a, "three\nEND\n")
	assert.Equal(t, []string{"three\nEND"}, again.WaitForBodies(t, 1), "nothing of the first run again")

	dcfg := testConfig(t.TempDir())
	b := filepath.Join(filepath.Dir(dcfg.Include[0]), "b.log")
	testkit.WriteFile(t, b, "one\n"+strings.Repeat("y", 30)+"\nmore\nEND\n")
	dcfg.MaxLogSize, dcfg.MaxLogSizeBehavior, dcfg.Multiline.LineEndPattern = 10, BehaviorTruncate, "END"
	dcfg.DeleteAfterRead = true
	startReceiver(t, dcfg, &testkit.CountingSink{}, nil)
	testkit.WaitUntil(t, testkit.Timeout, "delete_after_read", func() bool {
		_, err := os.Stat(b)
		return os.IsNotExist(err)
	})
}

// A cut line whose rest a force flush consumed (the writer went quiet without its newline) is
// committed to its end: a restart reads nothing of it again.
func TestCutLineFlushedIsCommitted(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.log")
	testkit.WriteFile(t, a, "first\n"+strings.Repeat("x", 25))
	m := testkit.NewMemStorage()
	cfg, host := withStorage(testConfig(dir), m)
	cfg.MaxLogSize = 10
	first := &testkit.LogsSink{}
	r := startReceiver(t, cfg, first, host)
	assert.Equal(t, []string{"first", strings.Repeat("x", 10), strings.Repeat("x", 10), "xxxxx"}, first.WaitForBodies(t, 4))
	require.NoError(t, r.Shutdown(context.Background()))

	again := &testkit.LogsSink{}
	startReceiver(t, cfg, again, host)
	testkit.AppendFile(t, a, "\nafter\n")
	assert.Equal(t, []string{"after"}, again.WaitForBodies(t, 1))
	again.AssertNoMoreThan(t, 1, settle, "nothing of the flushed line again")
}
