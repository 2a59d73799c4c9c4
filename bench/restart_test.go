package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/extension"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/mergelog/otelcol-mergelog/bench/internal/rig"
	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

// crashChildEnv, when set, makes the test binary run crashChild instead of the tests: the
// process that TestRestartAfterKill kills.
const crashChildEnv = "MERGELOG_BENCH_CRASH_CHILD"

func TestMain(m *testing.M) {
	if dir := os.Getenv(crashChildEnv); dir != "" {
		crashChild(dir)
		return
	}
	os.Exit(m.Run())
}

// batchSize is mergelog's batch.max_records in these tests: small, so that a file takes many
// deliveries and a checkpoint follows each.
const batchSize = 50

// restartKeys configures mergelog to read dir/app.log from the beginning, checkpointing in
// the file_storage extension.
func restartKeys(dir string) map[string]any {
	return map[string]any{
		"include":       []any{filepath.Join(dir, "app.log")},
		"start_at":      "beginning",
		"poll_interval": "50ms",
		"storage":       rig.FileStorageID.String(),
		// One batch in flight: the tests check records in file order (several in flight may
		// be accepted out of order; the receiver's tests cover that).
		"batch": map[string]any{"max_records": batchSize, "max_in_flight": 1},
	}
}

// storageHost starts a file_storage extension over dir/storage, stopped when the test ends.
func storageHost(t *testing.T, dir string) component.Host {
	t.Helper()
	return rig.Host{rig.FileStorageID: startStorage(t, dir)}
}

// startStorage starts a file_storage extension over dir/storage, stopped when the test ends.
func startStorage(t *testing.T, dir string) extension.Extension {
	t.Helper()
	ext, err := rig.StartFileStorage(t.Context(), filepath.Join(dir, "storage"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := ext.Shutdown(context.Background()); err != nil {
			t.Error(err)
		}
	})
	return ext
}

// slowSink accepts each batch after delay; like an exporter, it gives a batch up when the
// receiver cancels the call.
func slowSink(delay time.Duration) *testkit.LogsSink {
	return &testkit.LogsSink{Answer: func(ctx context.Context, _ int, _ plog.Logs) error {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(delay):
			return nil
		}
	}}
}

// lines returns the numbered lines [from, to) of the test log, of varied lengths.
func lines(from, to int) []string {
	return testkit.LinesOf(from, to, func(i int) string {
		return fmt.Sprintf("line %05d %s", i, strings.Repeat("x", 1+i%40))
	})
}

// TestRestartGraceful shuts mergelog down in the middle of a file while its consumer is slow,
// appends lines, and restarts it on the same file_storage: the two runs together deliver every
// line exactly once, in order.
func TestRestartGraceful(t *testing.T) {
	const before, after = 5000, 6000 // lines before the first run, after the restart
	dir := t.TempDir()
	log := filepath.Join(dir, "app.log")
	testkit.AppendFile(t, log, testkit.Text(lines(0, before)))

	slow := slowSink(5 * time.Millisecond)
	host := storageHost(t, dir)
	r := start(t, rig.Mergelog, restartKeys(dir), slow, host)
	testkit.WaitUntil(t, 20*time.Second, "the first 500 records", func() bool { return slow.RecordCount() >= 500 })
	if err := r.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	first := slow.Bodies()
	t.Logf("shut down after %d records", len(first))
	if len(first) >= before {
		t.Fatalf("the first run read the whole file (%d records): slow the consumer down", len(first))
	}

	testkit.AppendFile(t, log, testkit.Text(lines(before, after)))
	var rest testkit.LogsSink
	start(t, rig.Mergelog, restartKeys(dir), &rest, host)
	testkit.WaitUntil(t, 20*time.Second, "all records", func() bool { return len(first)+rest.RecordCount() >= after })
	waitQuiet(t, &rest, 500*time.Millisecond, 10*time.Second) // duplicates would come now
	if d := firstDiff(lines(0, after), append(first, rest.Bodies()...)); d != "" {
		t.Errorf("first run (%d records) + restart: %s", len(first), d)
	}
}

// TestRestartUnaccepted stops mergelog while its consumer holds a batch without accepting it:
// after a restart on the same file_storage, exactly the records not accepted come again.
func TestRestartUnaccepted(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "app.log")
	testkit.AppendFile(t, log, testkit.Text(lines(0, 1000)))

	const accepted = 3
	stuck := make(chan struct{})
	blocking := &testkit.LogsSink{Answer: func(ctx context.Context, call int, _ plog.Logs) error {
		if call <= accepted {
			return nil
		}
		if call == accepted+1 {
			close(stuck)
		}
		<-ctx.Done() // held until the receiver gives up on it at shutdown
		return ctx.Err()
	}}
	host := storageHost(t, dir)
	r := start(t, rig.Mergelog, restartKeys(dir), blocking, host)
	select {
	case <-stuck:
	case <-time.After(20 * time.Second):
		t.Fatal("timed out waiting for the batch the consumer holds")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if err := r.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	first := blocking.Bodies()
	if len(first) != accepted*batchSize {
		t.Fatalf("the consumer accepted %d records, want %d", len(first), accepted*batchSize)
	}

	var rest testkit.LogsSink
	start(t, rig.Mergelog, restartKeys(dir), &rest, host)
	testkit.WaitUntil(t, 20*time.Second, "the records not accepted", func() bool { return len(first)+rest.RecordCount() >= 1000 })
	waitQuiet(t, &rest, 500*time.Millisecond, 10*time.Second)
	if d := firstDiff(lines(len(first), 1000), rest.Bodies()); d != "" {
		t.Errorf("after the restart: %s", d)
	}
}

// TestRestartAfterKill runs mergelog in a child process that writes each batch it accepts to
// a file, kills it with SIGKILL in the middle of the input, and reads on from its checkpoint:
// nothing is lost, and only records accepted after the last checkpoint (at most one batch,
// as the checkpoint follows each accepted batch) come twice.
func TestRestartAfterKill(t *testing.T) {
	const total = 6000
	dir := t.TempDir()
	testkit.AppendFile(t, filepath.Join(dir, "app.log"), testkit.Text(lines(0, total)))
	acceptedPath := filepath.Join(dir, "accepted")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+dir)
	cmd.Stderr = os.Stderr
	// The child exits when this pipe closes, so it cannot outlive a failed test.
	if _, err := cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	testkit.WaitUntil(t, 30*time.Second, "the child to accept 1000 records", func() bool {
		return len(readLines(t, acceptedPath)) >= 1000
	})
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("the child ended with %v, want killed", err)
	}
	accepted := readLines(t, acceptedPath)
	if len(accepted) >= total {
		t.Fatalf("the child read the whole file (%d records) before it was killed", len(accepted))
	}
	if d := firstDiff(lines(0, len(accepted)), accepted); d != "" {
		t.Fatalf("the child accepted: %s", d)
	}

	var rest testkit.LogsSink
	start(t, rig.Mergelog, restartKeys(dir), &rest, storageHost(t, dir))
	testkit.WaitUntil(t, 20*time.Second, "the rest of the file", func() bool {
		got := rest.Bodies()
		return len(got) > 0 && got[len(got)-1] == lines(total-1, total)[0]
	})
	got := rest.Bodies()
	resumed := total - len(got)
	t.Logf("the child accepted %d records before it was killed; the restart resumed at %d", len(accepted), resumed)
	if resumed > len(accepted) {
		t.Fatalf("lost lines %d to %d: the child accepted up to %d, the restart began at %d",
			len(accepted), resumed, len(accepted), resumed)
	}
	if dup := len(accepted) - resumed; dup > batchSize {
		t.Errorf("%d records came twice, more than the one batch (%d) in flight", dup, batchSize)
	}
	if d := firstDiff(lines(max(resumed, 0), total), got); d != "" {
		t.Errorf("after the restart: %s", d)
	}
}

// crashChild runs mergelog over dir/app.log with file_storage, appending the records of each
// batch to dir/accepted before accepting it, until it is killed.
func crashChild(dir string) {
	out, err := os.OpenFile(filepath.Join(dir, "accepted"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		panic(err)
	}
	next, err := consumer.NewLogs(func(_ context.Context, ld plog.Logs) error {
		time.Sleep(5 * time.Millisecond) // slow enough to be killed in the middle of the file
		var b strings.Builder
		for _, r := range recordsOf(ld) {
			b.WriteString(r.body + "\n")
		}
		_, err := out.WriteString(b.String()) // one write: a kill leaves all of it or none
		return err
	})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	ext, err := rig.StartFileStorage(ctx, filepath.Join(dir, "storage"))
	if err != nil {
		panic(err)
	}
	if _, err := rig.Mergelog.Start(ctx, restartKeys(dir), next, rig.Host{rig.FileStorageID: ext}); err != nil {
		panic(err)
	}
	_, _ = io.Copy(io.Discard, os.Stdin) // until killed, or the test process is gone
	os.Exit(1)
}

func readLines(t *testing.T, path string) []string {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }() // read only
	var out []string
	s := bufio.NewScanner(f)
	for s.Scan() {
		out = append(out, s.Text())
	}
	return out
}
