package mergelogreceiver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

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
	var ids []checkpoint.Identity
	_, err := newCheckpointStore(m, zap.NewNop(), &counts{}).load(context.Background(), CorruptCheckpointFail, func(all []checkpoint.Identity) error {
		ids = all
		return nil
	})
	require.NoError(t, err)
	return len(checkpoint.Encode(ids))
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
		require.NoError(t, old.Set(context.Background(), legacyKey, checkpoint.Encode(tr.Checkpoint())))
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

// corruptions damage a checkpoint written for a.log and b.log, each in one way, and return
// the key damaged and the files whose identities it lost: start_over must read exactly those
// again from their start, and resume the others.
var corruptions = map[string]func(t *testing.T, m *testkit.MemStorage) (key string, lost []string){
	// The identity with the lower ID, so that the new identity of its file has another key and
	// the damaged one must be deleted.
	"identity key": func(t *testing.T, m *testkit.MemStorage) (string, []string) {
		ids, err := checkpoint.DecodeIndex(mustValue(t, m, indexKey))
		require.NoError(t, err)
		key := keyOf(slices.Min(ids))
		one, err := checkpoint.Decode(mustValue(t, m, key))
		require.NoError(t, err)
		require.NoError(t, m.Set(context.Background(), key, []byte("garbage")))
		return key, []string{strings.TrimSuffix(filepath.Base(one[0].Path), ".log")}
	},
	"missing key": func(t *testing.T, m *testkit.MemStorage) (string, []string) {
		ids, err := checkpoint.DecodeIndex(mustValue(t, m, indexKey))
		require.NoError(t, err)
		require.NoError(t, m.Set(context.Background(), indexKey, checkpoint.EncodeIndex(append(ids, 999))))
		return keyOf(999), nil
	},
	"index": func(t *testing.T, m *testkit.MemStorage) (string, []string) {
		require.NoError(t, m.Set(context.Background(), indexKey, []byte("garbage")))
		return indexKey, []string{"a", "b"}
	},
	"legacy key": func(t *testing.T, m *testkit.MemStorage) (string, []string) {
		for _, k := range m.Keys() {
			require.NoError(t, m.Delete(context.Background(), k))
		}
		require.NoError(t, m.Set(context.Background(), legacyKey, []byte("garbage")))
		return legacyKey, []string{"a", "b"}
	},
}

// checkpointedPair writes a.log and b.log into dir, reads them with a receiver on m and stops it
// once both are checkpointed.
func checkpointedPair(t *testing.T, dir string, m *testkit.MemStorage) map[string]string {
	t.Helper()
	files := map[string]string{"a": numbered(0, 10), "b": testkit.Text(testkit.Lines("b", 0, 5))}
	for name, text := range files {
		testkit.WriteFile(t, filepath.Join(dir, name+".log"), text)
	}
	cfg, host := withStorage(testConfig(dir), m)
	r := startReceiver(t, cfg, &testkit.CountingSink{}, host)
	testkit.WaitUntil(t, testkit.Timeout, "both files checkpointed", func() bool { return len(m.Keys()) == 3 })
	require.NoError(t, r.Shutdown(context.Background()))
	return files
}

// A checkpoint key that cannot be decoded does not stop the receiver (a DaemonSet's pod would
// restart forever): it is counted, logged by name and size, deleted by the next write, and the
// files it described are read again from their start; the others resume where they were.
func TestCorruptCheckpointStartsOver(t *testing.T) {
	for name, damage := range corruptions {
		t.Run(name, func(t *testing.T) {
			dir, m := t.TempDir(), testkit.NewMemStorage()
			files := checkpointedPair(t, dir, m)
			key, lost := damage(t, m)

			tel := componenttestTelemetry(t)
			core, logs := observer.New(zap.WarnLevel)
			set := tel.settings()
			set.Logger = zap.New(core)
			cfg, host := withStorage(testConfig(dir), m)
			again := &testkit.LogsSink{}
			startWith(t, set, cfg, again, host)
			var want []string
			for _, name := range lost {
				want = append(want, strings.Split(strings.TrimSuffix(files[name], "\n"), "\n")...)
			}
			for name := range files {
				testkit.AppendFile(t, filepath.Join(dir, name+".log"), "after "+name+"\n")
				want = append(want, "after "+name)
			}
			assertSameLines(t, want, again.WaitForBodies(t, len(want)))
			again.AssertNoMoreThan(t, len(want), settle, "nothing else read again")
			tel.waitSum(t, "otelcol_receiver_mergelog_checkpoint_corrupt", 1)
			assert.Equal(t, int64(1), tel.sum("otelcol_receiver_mergelog_checkpoint_corrupt", nil))
			warned := logs.FilterField(zap.String("key", key)).All()
			require.Len(t, warned, 1, "one warning naming %s", key)
			assert.Contains(t, warned[0].Message, "could not be decoded")
			testkit.WaitUntil(t, testkit.Timeout, "the damaged key deleted or written anew", func() bool {
				data, ok := m.Value(key)
				if !ok {
					return true
				}
				if key == indexKey {
					_, err := checkpoint.DecodeIndex(data)
					return err == nil
				}
				_, err := checkpoint.Decode(data)
				return err == nil
			})
		})
	}
}

// With on_corrupt_checkpoint: fail, Start fails naming the key, as releases before did.
func TestCorruptCheckpointFailsWhenAsked(t *testing.T) {
	for name, damage := range corruptions {
		t.Run(name, func(t *testing.T) {
			dir, m := t.TempDir(), testkit.NewMemStorage()
			checkpointedPair(t, dir, m)
			key, _ := damage(t, m)

			cfg, host := withStorage(testConfig(dir), m)
			cfg.OnCorruptCheckpoint = CorruptCheckpointFail
			r, err := NewFactory().CreateLogs(context.Background(), receivertest.NewNopSettings(metadata.Type), cfg, &testkit.CountingSink{})
			require.NoError(t, err)
			require.ErrorContains(t, r.Start(context.Background(), host), fmt.Sprintf("restoring the checkpoint (key %q)", key))
			require.NoError(t, r.Shutdown(context.Background()))
		})
	}
}

func mustValue(t *testing.T, m *testkit.MemStorage, key string) []byte {
	t.Helper()
	data, ok := m.Value(key)
	require.True(t, ok, "key %s", key)
	return data
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
