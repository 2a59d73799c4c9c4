package mergelogreceiver

import (
	"time"
	"unsafe"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/adapter"
	stanza "github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/entry"

	"github.com/mergelog/otelcol-mergelog/internal/ledger"
	"github.com/mergelog/otelcol-mergelog/receiver/mergelogreceiver/internal/metadata"
)

// mark names one record of a batch, to settle it once the batch is delivered or given up.
type mark struct {
	s   *stream
	seq ledger.Seq
}

// batch builds the plog.Logs of the next ConsumeLogs call directly: one ResourceLogs per
// resource group (one, unless pods' files are read), each with one scope. What comes out of
// operators is converted as file_log converts it (grouped by its own resource), when sealed.
type batch struct {
	logs    plog.Logs
	groups  map[*resourceGroup]plog.LogRecordSlice
	last    *resourceGroup // the group of the last record, and its records
	records plog.LogRecordSlice
	outputs []*stanza.Entry // from operators, not yet converted
	shared  []bool          // per output: not recycled (a router's route hands one entry to each of its outputs)
	// marks settle entries once the batch is accepted: one per record, except a fan-out's
	// copies, and entries that left a holding chain without a record of their own.
	marks  []mark
	n      int // records
	bytes  int
	opened time.Time // when the first record went in
}

func newBatch(capacity int) *batch {
	b := &batch{marks: make([]mark, 0, capacity), groups: map[*resourceGroup]plog.LogRecordSlice{}}
	b.reset()
	return b
}

// reset starts an empty plog.Logs: the delivered one belongs to the next consumer now.
func (b *batch) reset() {
	b.logs = plog.NewLogs()
	clear(b.groups)
	b.last = nil
	b.marks = b.marks[:0]
	b.n, b.bytes = 0, 0
}

func (b *batch) len() int { return b.n }

// seal returns the batch's plog.Logs, converting what came out of operators with stanza's own
// converter (body, attributes, resource, timestamps, severity, trace fields).
func (b *batch) seal() plog.Logs {
	if len(b.outputs) == 0 {
		return b.logs
	}
	b.logs = adapter.ConvertEntries(b.outputs, metadata.ScopeName, "")
	for i, e := range b.outputs {
		if !b.shared[i] {
			stanza.Put(e)
		}
		b.outputs[i] = nil
	}
	b.outputs, b.shared = b.outputs[:0], b.shared[:0]
	return b.logs
}

// recordsOf returns the record slice of group g, making its ResourceLogs the first time.
func (b *batch) recordsOf(g *resourceGroup) plog.LogRecordSlice {
	if g == b.last {
		return b.records
	}
	rs, ok := b.groups[g]
	if !ok {
		rl := b.logs.ResourceLogs().AppendEmpty()
		g.attrs.CopyTo(rl.Resource().Attributes())
		sl := rl.ScopeLogs().AppendEmpty()
		sl.Scope().SetName(metadata.ScopeName)
		rs = sl.LogRecords()
		if len(b.groups) == 0 {
			// Most batches have one resource; with many (a node's pods), each grows as needed.
			rs.EnsureCapacity(cap(b.marks))
		}
		b.groups[g] = rs
	}
	b.last, b.records = g, rs
	return rs
}

// add appends e as a log record; nop encoding makes the body a Bytes value.
func (b *batch) add(e *entry, rawBody, recordNumber bool) {
	if b.n == 0 {
		b.opened = time.Now()
	}
	b.n++
	if e.out != nil {
		b.outputs = append(b.outputs, e.out)
		b.shared = append(b.shared, e.shared)
		if !e.unmarked {
			b.marks = append(b.marks, mark{e.s, e.seq})
		}
		b.bytes += len(e.body) + e.s.attrs.bytes
		return
	}
	lr := b.recordsOf(e.s.f.resource).AppendEmpty()
	if e.native {
		e.rec.MoveTo(lr)
	} else {
		fillRecord(lr, e, rawBody, recordNumber)
	}
	b.marks = append(b.marks, mark{e.s, e.seq})
	b.bytes += len(e.body) + e.s.attrs.bytes
}

// fillRecord makes lr e's record: body, timestamps, attributes (the stream's, then the
// record's own).
func fillRecord(lr plog.LogRecord, e *entry, rawBody, recordNumber bool) {
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
		attrs.EnsureCapacity(e.s.attrs.m.Len() + 1)
		e.s.attrs.m.CopyTo(attrs)
		attrs.PutInt(attrRecordNumber, e.record)
	} else {
		e.s.attrs.m.CopyTo(attrs)
	}
	if e.logtag != "" {
		attrs.PutStr(attrLogTag, e.logtag)
	}
	if e.s.attrs.perRecord {
		e.s.attrs.putPerRecord(attrs, e)
	}
}
