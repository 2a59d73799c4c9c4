package mergelogreceiver

import (
	"time"
	"unsafe"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/mergelog/otelcol-mergelog/receiver/mergelogreceiver/internal/metadata"
)

// entry is one log entry on its way into a batch: the receiver owns its body (the joiner's
// bytes are only valid during its callback, and the merge window holds entries for a while).
type entry struct {
	f        *fileState
	seq      int64 // its slot in f.out
	record   int64 // log.file.record_number
	body     string
	at       int64 // Unix nanoseconds; meaningful when timed
	timed    bool
	observed int64
}

// mark names one record of a batch, to settle it once the batch is delivered or given up.
type mark struct {
	f   *fileState
	seq int64
}

// batch builds the plog.Logs of the next ConsumeLogs call directly: all records share one
// resource (the static resource attributes) and one scope.
type batch struct {
	logs    plog.Logs
	records plog.LogRecordSlice
	marks   []mark
	bytes   int
	opened  time.Time // when the first record went in
}

func newBatch(resource pcommon.Map, capacity int) *batch {
	b := &batch{marks: make([]mark, 0, capacity)}
	b.reset(resource, capacity)
	return b
}

// reset starts an empty plog.Logs: the delivered one belongs to the next consumer now.
func (b *batch) reset(resource pcommon.Map, capacity int) {
	b.logs = plog.NewLogs()
	rl := b.logs.ResourceLogs().AppendEmpty()
	resource.CopyTo(rl.Resource().Attributes())
	sl := rl.ScopeLogs().AppendEmpty()
	sl.Scope().SetName(metadata.ScopeName)
	b.records = sl.LogRecords()
	b.records.EnsureCapacity(capacity)
	b.marks = b.marks[:0]
	b.bytes = 0
}

func (b *batch) len() int { return len(b.marks) }

// add appends e as a log record; nop encoding makes the body a Bytes value.
func (b *batch) add(e *entry, rawBody, recordNumber bool) {
	if len(b.marks) == 0 {
		b.opened = time.Now()
	}
	lr := b.records.AppendEmpty()
	if rawBody {
		// FromRaw copies: the arena's bytes are only read.
		lr.Body().SetEmptyBytes().FromRaw(unsafe.Slice(unsafe.StringData(e.body), len(e.body)))
	} else {
		lr.Body().SetStr(e.body)
	}
	if e.timed {
		lr.SetTimestamp(pcommon.Timestamp(e.at))
	}
	lr.SetObservedTimestamp(pcommon.Timestamp(e.observed))
	attrs := lr.Attributes()
	if recordNumber {
		attrs.EnsureCapacity(e.f.attrs.Len() + 1)
		e.f.attrs.CopyTo(attrs)
		attrs.PutInt(attrRecordNumber, e.record)
	} else {
		e.f.attrs.CopyTo(attrs)
	}
	b.marks = append(b.marks, mark{e.f, e.seq})
	b.bytes += len(e.body) + e.f.attrBytes
}
