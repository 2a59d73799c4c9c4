package testkit

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/plog"
)

// LogsSink is a consumer.Logs that keeps a copy of every batch it accepts. Its zero value
// accepts everything.
type LogsSink struct {
	// Answer, when set, decides each call before the batch is kept: call counts the calls from
	// 1 in the order they arrive, and an error refuses the batch, which is then not kept. It
	// runs without the sink's lock, so it may block (a slow or stuck consumer) while the test
	// reads the sink; concurrent calls run it concurrently.
	Answer func(ctx context.Context, call int, ld plog.Logs) error

	mu      sync.Mutex
	calls   int
	batches []plog.Logs
	records int
}

var _ consumer.Logs = (*LogsSink)(nil)

func (s *LogsSink) Capabilities() consumer.Capabilities { return consumer.Capabilities{} }

func (s *LogsSink) ConsumeLogs(ctx context.Context, ld plog.Logs) error {
	s.mu.Lock()
	s.calls++
	call := s.calls
	s.mu.Unlock()
	if s.Answer != nil {
		if err := s.Answer(ctx, call, ld); err != nil {
			return err
		}
	}
	// A copy: the caller may reuse ld once the call returns.
	cp := plog.NewLogs()
	ld.CopyTo(cp)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.batches = append(s.batches, cp)
	s.records += cp.LogRecordCount()
	return nil
}

// Calls is the number of ConsumeLogs calls so far, refused ones included.
func (s *LogsSink) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

// Batches returns the accepted batches in the order they were kept.
func (s *LogsSink) Batches() []plog.Logs {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]plog.Logs(nil), s.batches...)
}

// RecordCount is the number of accepted records.
func (s *LogsSink) RecordCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.records
}

// Records returns the accepted records in delivery order.
func (s *LogsSink) Records() []plog.LogRecord {
	var out []plog.LogRecord
	for _, ld := range s.Batches() {
		out = appendRecords(out, ld)
	}
	return out
}

// Bodies returns the bodies of the accepted records, as strings, in delivery order.
func (s *LogsSink) Bodies() []string { return bodies(s.Records()) }

// BodiesOf returns the bodies of ld's records, as strings, in order (resource by resource,
// scope by scope).
func BodiesOf(ld plog.Logs) []string { return bodies(appendRecords(nil, ld)) }

func appendRecords(out []plog.LogRecord, ld plog.Logs) []plog.LogRecord {
	for _, rl := range ld.ResourceLogs().All() {
		for _, sl := range rl.ScopeLogs().All() {
			for _, lr := range sl.LogRecords().All() {
				out = append(out, lr)
			}
		}
	}
	return out
}

func bodies(recs []plog.LogRecord) []string {
	out := make([]string, len(recs))
	for i, lr := range recs {
		out[i] = lr.Body().AsString()
	}
	return out
}

// WaitForRecords waits up to Timeout until at least n records were accepted, and returns them.
func (s *LogsSink) WaitForRecords(t testing.TB, n int) []plog.LogRecord {
	t.Helper()
	if !eventually(Timeout, 5*time.Millisecond, func() bool { return s.RecordCount() >= n }) {
		t.Fatalf("timed out after %s waiting for %d records: have %d", Timeout, n, s.RecordCount())
	}
	return s.Records()
}

// AssertNoMoreThan checks that s holds no more than n records at any time within the window,
// which should be long enough for what would come twice (or late) to come, and reports
// whether it held.
func (s *LogsSink) AssertNoMoreThan(t testing.TB, n int, window time.Duration, msgAndArgs ...any) bool {
	t.Helper()
	return assert.Never(t, func() bool { return s.RecordCount() > n }, window, 5*time.Millisecond, msgAndArgs...)
}

// WaitForBodies is WaitForRecords returning the records' bodies.
func (s *LogsSink) WaitForBodies(t testing.TB, n int) []string {
	t.Helper()
	s.WaitForRecords(t, n)
	return s.Bodies()
}
