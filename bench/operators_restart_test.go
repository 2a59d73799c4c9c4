package bench

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/extension"
	"go.opentelemetry.io/collector/extension/xextension/storage"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/mergelog/otelcol-mergelog/bench/internal/rig"
	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

// The restarts of this file run a holding chain: recombine joins each entry's continuation
// lines to its first line, and a filter drops the DEBUG entries, so that at any stop recombine
// holds the group being read and entries before it left the chain without a record.

// chainEntry is the lines of entry i of the test log: a first line, DEBUG for one entry in
// seven (one line only, so that a group cut by a stop never leaves a DEBUG tail that the
// filter no longer recognises), and up to five continuation lines for one in three.
func chainEntry(i int) []string {
	level := "INFO"
	if i%7 == 3 {
		level = "DEBUG"
	}
	out := []string{fmt.Sprintf("2024-01-01 00:00:00 %s seq=%05d %s", level, i, strings.Repeat("x", 1+i%30))}
	if level == "INFO" && i%3 == 0 {
		for k := range 1 + i%5 {
			out = append(out, fmt.Sprintf("at frame %05d.%d", i, k))
		}
	}
	return out
}

// chainLog returns the text of entries [from, to) and the lines of them the chain lets through.
func chainLog(from, to int) (text string, kept []string) {
	var all []string
	for i := range to - from {
		e := chainEntry(from + i)
		all = append(all, e...)
		if !strings.Contains(e[0], " DEBUG ") {
			kept = append(kept, e...)
		}
	}
	return testkit.Text(all), kept
}

// chainKeys is restartKeys with the chain; force_flush_period is long, so that recombine holds
// a group until its next first line or a stop.
func chainKeys(dir string) map[string]any {
	k := restartKeys(dir)
	k["include_file_path"] = true // recombine's groups are then per file (its source_identifier)
	k["operators"] = []any{
		map[string]any{
			"type": "recombine", "combine_field": "body", "is_first_entry": `body matches "^\\d{4}-"`,
			"force_flush_period": "1m",
		},
		map[string]any{"type": "filter", "expr": `body contains " DEBUG "`},
	}
	return k
}

// lineRecords returns the lines of each record s accepted, in delivery order.
func lineRecords(s *testkit.LogsSink) [][]string {
	var out [][]string
	for _, b := range s.Bodies() {
		out = append(out, strings.Split(b, "\n"))
	}
	return out
}

func flatten(rs [][]string) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r...)
	}
	return out
}

// TestOperatorsRestartGraceful shuts mergelog down in the middle of the file while recombine
// holds a group and a slow consumer keeps batches waiting, appends entries, and restarts it on
// the same file_storage: the two runs deliver every line the filter keeps exactly once, in
// order (the held group is flushed at the stop, cut where reading stopped; its rest comes
// after the restart).
func TestOperatorsRestartGraceful(t *testing.T) {
	const before, after = 4000, 4500
	dir := t.TempDir()
	log := filepath.Join(dir, "app.log")
	text, _ := chainLog(0, before)
	testkit.AppendFile(t, log, text)
	slow := slowSink(5 * time.Millisecond)
	host := storageHost(t, dir)
	r := start(t, rig.Mergelog, chainKeys(dir), slow, host)
	testkit.WaitUntil(t, 20*time.Second, "the first 500 records", func() bool { return slow.RecordCount() >= 500 })
	if err := r.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	first := flatten(lineRecords(slow))
	_, all := chainLog(0, before)
	if len(first) >= len(all) {
		t.Fatalf("the first run read the whole file (%d lines): slow the consumer down", len(first))
	}

	text, _ = chainLog(before, after)
	testkit.AppendFile(t, log, text)
	_, want := chainLog(0, after)
	var rest testkit.LogsSink
	r = start(t, rig.Mergelog, chainKeys(dir), &rest, host)
	// The last group stays held (no first line follows it) until the stop flushes it.
	testkit.WaitUntil(t, 20*time.Second, "all but the last group", func() bool {
		return len(first)+len(flatten(lineRecords(&rest))) >= len(want)-len(chainEntry(after-1))
	})
	if err := r.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Logf("first run: %d lines; restart: %d records", len(first), rest.RecordCount())
	if d := firstDiff(want, append(first, flatten(lineRecords(&rest))...)); d != "" {
		t.Errorf("first run (%d lines) + restart: %s", len(first), d)
	}
}

// TestOperatorsRestartAfterCrash crashes mergelog (its storage frozen, so that no checkpoint
// written after that moment survives, and its consumer gone) and restarts it on the same
// file_storage: once in the middle of the file under a slow consumer, once at the end of the
// file while recombine holds the last group with every record before it accepted and
// checkpointed. Nothing is lost, and what comes twice is within the README's bound: the
// batch in flight (one here), plus one record for the group recombine held.
func TestOperatorsRestartAfterCrash(t *testing.T) {
	const total = 3001 // its last entry, 3000, is one the filter keeps, with a continuation line
	text, want := chainLog(0, total)
	held := len(chainEntry(total - 1)) // the lines of the last group, which nothing follows
	for _, tc := range []struct {
		name       string
		crashAfter int           // the consumer call after which the process dies; 0: once only the last group is left
		delay      time.Duration // per call of the first run's consumer
	}{
		{"mid-file", 15, 5 * time.Millisecond},
		{"recombine holding the last group", 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			log := filepath.Join(dir, "app.log")
			testkit.AppendFile(t, log, text)
			fs := startFreezableStorage(t, dir)
			host := rig.Host{rig.FileStorageID: fs}
			first := &testkit.LogsSink{Answer: func(ctx context.Context, call int, _ plog.Logs) error {
				if fs.frozen.Load() {
					return errors.New("the process is gone")
				}
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(tc.delay):
				}
				if call == tc.crashAfter {
					fs.frozen.Store(true) // the process dies right after this batch is accepted
				}
				return nil
			}}
			r := start(t, rig.Mergelog, chainKeys(dir), first, host)
			if tc.crashAfter == 0 {
				// Every record before the last group accepted, and the checkpoint after it
				// written (one write per accepted batch): the last group is only held.
				testkit.WaitUntil(t, 20*time.Second, "all but the last group, checkpointed", func() bool {
					return len(flatten(lineRecords(first))) >= len(want)-held && fs.writes.Load() >= int64(first.Calls())
				})
				fs.frozen.Store(true)
			} else {
				testkit.WaitUntil(t, 20*time.Second, "the crash", fs.frozen.Load)
			}
			// No clean drain: what the chain flushes at Shutdown reaches a consumer that is gone.
			// The deadline is meant to pass: its length only bounds the test.
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			defer cancel()
			if err := r.Shutdown(ctx); err != nil {
				t.Fatal(err)
			}
			accepted := flatten(lineRecords(first))
			if d := firstDiff(want[:len(accepted)], accepted); d != "" {
				t.Fatalf("the first run accepted: %s", d)
			}

			// One more entry, so that the group held at the crash is flushed once read again.
			fs.frozen.Store(false)
			text, _ := chainLog(total, total+1)
			testkit.AppendFile(t, log, text)
			_, want := chainLog(0, total+1)
			rest := &testkit.LogsSink{}
			r = start(t, rig.Mergelog, chainKeys(dir), rest, host)
			last := want[len(want)-len(chainEntry(total))-1]
			testkit.WaitUntil(t, 20*time.Second, "the group held at the crash", func() bool {
				got := flatten(lineRecords(rest))
				return len(got) > 0 && got[len(got)-1] == last
			})
			if err := r.Shutdown(context.Background()); err != nil { // flushes the entry added
				t.Fatal(err)
			}
			again := lineRecords(rest)
			got := flatten(again)
			resumed := len(want) - len(got)
			if resumed > len(accepted) {
				t.Fatalf("lost lines %d to %d: the first run accepted up to %d, the restart began at %d",
					len(accepted), resumed, len(accepted), resumed)
			}
			if d := firstDiff(want[max(resumed, 0):], got); d != "" {
				t.Fatalf("after the restart: %s", d)
			}
			// The records of the restart whose lines the first run had accepted already.
			dup, lines := 0, resumed
			for _, rec := range again {
				if lines+len(rec) > len(accepted) {
					break
				}
				dup++
				lines += len(rec)
			}
			t.Logf("first run: %d lines in %d records; the restart resumed at line %d: %d records again",
				len(accepted), first.RecordCount(), resumed, dup)
			if dup > batchSize+1 {
				t.Errorf("%d records came twice, more than the batch in flight (%d) and the held group (1)", dup, batchSize)
			}
		})
	}
}

// freezableStorage is a file_storage extension whose clients stop writing once frozen while
// pretending to succeed, as if the process had died before the write; it counts the writes
// that went through.
type freezableStorage struct {
	extension.Extension
	frozen atomic.Bool
	writes atomic.Int64
}

var _ storage.Extension = (*freezableStorage)(nil)

func startFreezableStorage(t *testing.T, dir string) *freezableStorage {
	t.Helper()
	return &freezableStorage{Extension: startStorage(t, dir)}
}

func (f *freezableStorage) GetClient(ctx context.Context, kind component.Kind, id component.ID, name string) (storage.Client, error) {
	c, err := f.Extension.(storage.Extension).GetClient(ctx, kind, id, name)
	if err != nil {
		return nil, err
	}
	return &freezableClient{Client: c, storage: f}, nil
}

type freezableClient struct {
	storage.Client
	storage *freezableStorage
}

func (c *freezableClient) Set(ctx context.Context, key string, value []byte) error {
	return c.Batch(ctx, storage.SetOperation(key, value))
}

func (c *freezableClient) Delete(ctx context.Context, key string) error {
	return c.Batch(ctx, storage.DeleteOperation(key))
}

func (c *freezableClient) Batch(ctx context.Context, ops ...*storage.Operation) error {
	if c.storage.frozen.Load() {
		for _, op := range ops {
			if op.Type != storage.Get {
				return nil
			}
		}
	}
	if err := c.Client.Batch(ctx, ops...); err != nil {
		return err
	}
	c.storage.writes.Add(1)
	return nil
}
