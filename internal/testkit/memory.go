package testkit

import (
	"context"
	"runtime"
	"sync/atomic"

	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/plog"
)

// LiveHeap returns the bytes of heap objects still reachable: HeapAlloc after two collections
// (the second empties what sync.Pools kept through the first), so that buffers held for
// reuse count only while something holds them.
func LiveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// CountingSink is a consumer.Logs that counts the records it accepts and keeps nothing, for
// tests that measure the heap: LogsSink's copies would be most of what they measure.
type CountingSink struct{ records atomic.Int64 }

var _ consumer.Logs = (*CountingSink)(nil)

func (s *CountingSink) Capabilities() consumer.Capabilities { return consumer.Capabilities{} }

func (s *CountingSink) ConsumeLogs(_ context.Context, ld plog.Logs) error {
	s.records.Add(int64(ld.LogRecordCount()))
	return nil
}

// Records is the number of records accepted so far.
func (s *CountingSink) Records() int64 { return s.records.Load() }
