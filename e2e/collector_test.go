// Package e2e runs the built otelcol-mergelog distribution as a real process. The tests need the
// binary: `make e2e` (part of `make test`) builds it and sets OTELCOL_BIN; without it they skip.
package e2e

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/plog"
	"go.uber.org/goleak"
)

// skipNoCollector is the skip message of every test here when OTELCOL_BIN is not set.
const skipNoCollector = "OTELCOL_BIN is not set, so the e2e tests skip: run `make e2e` (part of `make test`), " +
	"which builds the collector and sets it, or OTELCOL_BIN=/path/to/otelcol-mergelog go test ./e2e/"

// TestMain says when every test skips for want of the collector. go test ./... shows nothing of
// a package that passes, so besides the line on stderr (shown with -v) it prints the testing
// package's "no tests to run" warning, which go test turns into "[no tests to run]" on the
// package's ok line: plain `go test ./...` then shows that e2e ran nothing.
func TestMain(m *testing.M) {
	if os.Getenv("OTELCOL_BIN") == "" {
		fmt.Fprintln(os.Stderr, "e2e: "+skipNoCollector)
		goleak.VerifyTestMain(noneRan{m})
	}
	goleak.VerifyTestMain(m)
}

// noneRan runs the tests (each skips, saying why) and then prints the "no tests to run" warning.
type noneRan struct{ m *testing.M }

func (n noneRan) Run() int {
	code := n.m.Run()
	fmt.Println("\ntesting: warning: no tests to run")
	return code
}

// collector is one running otelcol-mergelog process.
type collector struct {
	cmd    *exec.Cmd
	out    syncBuffer    // its stdout and stderr
	exited chan struct{} // closed when the process has ended and cmd.ProcessState is set
}

// syncBuffer is a bytes.Buffer that can be read while the process writes to it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startCollector runs the distribution with the given config files (merged in order, as the
// collector does with several --config flags).
func startCollector(t *testing.T, configs ...string) *collector {
	t.Helper()
	return startCollectorVia(t, nil, configs...)
}

// startCollectorVia is startCollector run through a wrapper command, which must exec its
// arguments (so that signals reach the collector), e.g. a shell that lowers a ulimit first.
func startCollectorVia(t *testing.T, wrapper []string, configs ...string) *collector {
	t.Helper()
	bin := os.Getenv("OTELCOL_BIN")
	if bin == "" {
		t.Skip(skipNoCollector)
	}
	args := append(append([]string(nil), wrapper...), bin)
	for _, c := range configs {
		args = append(args, "--config", c)
	}
	c := &collector{cmd: exec.Command(args[0], args[1:]...), exited: make(chan struct{})}
	c.cmd.Stdout, c.cmd.Stderr = &c.out, &c.out
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = c.cmd.Wait(); close(c.exited) }() // the status is in c.cmd.ProcessState
	t.Cleanup(func() { c.stop(t) })
	return c
}

func (c *collector) stop(t *testing.T) {
	if c.end(os.Interrupt, 20*time.Second) {
		return
	}
	_ = c.cmd.Process.Kill()
	<-c.exited
	t.Errorf("collector did not stop on SIGINT; output:\n%s", c.out.String())
}

// end sends sig, unless the process has ended already, and reports whether it ended within
// timeout.
func (c *collector) end(sig os.Signal, timeout time.Duration) bool {
	select {
	case <-c.exited:
		return true
	default:
	}
	_ = c.cmd.Process.Signal(sig) // it may have ended since: exited tells
	select {
	case <-c.exited:
		return true
	case <-time.After(timeout):
		return false
	}
}

// readRecords decodes a file exporter's OTLP/JSON lines into log records.
func readRecords(t *testing.T, path string) []plog.LogRecord {
	t.Helper()
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }() // read only
	var recs []plog.LogRecord
	var u plog.JSONUnmarshaler
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		logs, err := u.UnmarshalLogs(sc.Bytes())
		if err != nil {
			continue // a line still being written
		}
		for i := range logs.ResourceLogs().Len() {
			rl := logs.ResourceLogs().At(i)
			for j := range rl.ScopeLogs().Len() {
				lrs := rl.ScopeLogs().At(j).LogRecords()
				for k := range lrs.Len() {
					recs = append(recs, lrs.At(k))
				}
			}
		}
	}
	return recs
}

// waitRecords polls the exporter's file until it holds at least n records.
func waitRecords(t *testing.T, c *collector, path string, n int) []plog.LogRecord {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for {
		recs := readRecords(t, path)
		if len(recs) >= n {
			return recs
		}
		select {
		case <-ctx.Done():
			t.Fatalf("got %d records, want %d; collector output:\n%s", len(recs), n, c.out.String())
		case <-time.After(100 * time.Millisecond):
		}
	}
}
