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
	groups  map[*resourceGroup]group
	last    *resourceGroup // the group of the last record, and its records
	records group
	size    *sizer          // the delivery's: bytes is the bound of the encoding it keeps
	origins origins         // where each record came from, to name the records dropped
	outputs []*stanza.Entry // from operators, not yet converted
	shared  []bool          // per output: not recycled (a router's route hands one entry to each of its outputs)
	// marks settle entries once the batch is accepted: one per record, except a fan-out's
	// copies, and entries that left a holding chain without a record of their own.
	marks  []mark
	n      int       // records
	bytes  int       // bound of the encoded OTLP size (direct records), or an estimate (operators')
	opened time.Time // when the first record went in
}

func newBatch(capacity int, size *sizer) *batch {
	b := &batch{marks: make([]mark, 0, capacity), groups: map[*resourceGroup]group{}, size: size}
	b.reset()
	return b
}

// reset starts an empty plog.Logs: the delivered one belongs to the next consumer now.
func (b *batch) reset() {
	b.logs = plog.NewLogs()
	clear(b.groups)
	b.last = nil
	b.marks = b.marks[:0]
	b.origins.reset()
	b.n, b.bytes = 0, 0
}

func (b *batch) len() int { return b.n }

// settleWith has entry seq of s settle with the batch, without a record of its own: it left
// the operators dropped or merged into a record that may be in the batch.
func (b *batch) settleWith(s *stream, seq ledger.Seq) {
	b.marks = append(b.marks, mark{s, seq})
}

// seal returns the batch's plog.Logs, converting what came out of operators with stanza's own
// converter (body, attributes, resource, timestamps, severity, trace fields), and whether it
// is larger than maxBytes once encoded (it went on filling while parked; operators' records
// are only measured here).
func (b *batch) seal(maxBytes int) (plog.Logs, bool) {
	if len(b.outputs) == 0 {
		return b.logs, b.bytes > maxBytes
	}
	b.logs = adapter.ConvertEntries(b.outputs, metadata.ScopeName, "")
	b.origins.grouped = b.logs.ResourceLogs().Len() > 1 || b.logs.ResourceLogs().At(0).ScopeLogs().Len() > 1
	for i, e := range b.outputs {
		if !b.shared[i] {
			stanza.Put(e)
		}
		b.outputs[i] = nil
	}
	b.outputs, b.shared = b.outputs[:0], b.shared[:0]
	return b.logs, b.size.logs(b.logs) > maxBytes
}

// group is the records of one resource group in a batch, and the place of its ResourceLogs.
type group struct {
	records plog.LogRecordSlice
	at      int32
}

// recordsOf returns group g's records, making its ResourceLogs the first time.
func (b *batch) recordsOf(g *resourceGroup) group {
	if g == b.last {
		return b.records
	}
	rs, ok := b.groups[g]
	if !ok {
		rl := b.logs.ResourceLogs().AppendEmpty()
		g.attrs.CopyTo(rl.Resource().Attributes())
		sl := rl.ScopeLogs().AppendEmpty()
		sl.Scope().SetName(metadata.ScopeName)
		b.bytes += b.size.groupOf(g, rl)
		rs = group{records: sl.LogRecords(), at: int32(len(b.groups))}
		if len(b.groups) == 0 {
			// Most batches have one resource; with many (a node's pods), each grows as needed.
			rs.records.EnsureCapacity(cap(b.marks))
		}
		b.groups[g] = rs
	}
	b.last, b.records = g, rs
	return rs
}

// measure returns the encoded size of e's record in the batch, and that of its group's
// resource and scope if the batch has none of its records yet. It fills the sizer's next
// record, which add then moves in. Operators' records are estimated by their body and the
// file's attributes (measured whole at seal).
func (b *batch) measure(e *entry, rawBody, recordNumber bool) (size, groupSize int) {
	if e.out != nil {
		return len(e.body) + e.s.attrs.bytes, 0
	}
	lr := e.rec
	if !e.native {
		lr = b.size.next
		fillRecord(lr, e, rawBody, recordNumber)
	}
	if g := e.s.f.resource; g != b.last {
		if _, ok := b.groups[g]; !ok {
			groupSize = b.size.probe(g)
		}
	}
	return b.size.record(lr), groupSize
}

// add appends e as a log record of size bytes once encoded (measure's answer: the next
// record is what it filled); nop encoding makes the body a Bytes value.
func (b *batch) add(e *entry, size int) {
	if b.n == 0 {
		b.opened = time.Now()
	}
	b.n++
	b.bytes += size
	if e.out != nil {
		b.outputs = append(b.outputs, e.out)
		b.shared = append(b.shared, e.shared)
		if !e.unmarked {
			b.marks = append(b.marks, mark{e.s, e.seq})
		}
		b.origins.add(e, 0)
		return
	}
	g := b.recordsOf(e.s.f.resource)
	lr := g.records.AppendEmpty()
	if e.native {
		e.rec.MoveTo(lr)
	} else {
		b.size.next.MoveTo(lr)
	}
	b.origins.add(e, g.at)
	b.marks = append(b.marks, mark{e.s, e.seq})
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
