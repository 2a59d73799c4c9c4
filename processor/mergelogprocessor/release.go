package mergelogprocessor // import "github.com/mergelog/otelcol-mergelog/processor/mergelogprocessor"

import (
	"go.opentelemetry.io/collector/pdata/plog"
)

// outputBatchRecords bounds the records of one output batch, so that a release of many
// records (max_delay running out after an outage upstream) does not make a message larger than
// an OTLP receiver takes by default (4 MiB).
const outputBatchRecords = 2000

// releaser moves the records one release lets go, in the windows' order, into output batches
// and queues them; it counts what it moved for telemetry. Used with p.mu held, from begin to end.
type releaser struct {
	p      *mergelogProcessor
	now    int64
	cur    *outBatch
	s      *stream // whose window is emitting
	emitFn func(slot uint32, heldFor int64) bool

	released, early int
	late            int64
	longest         int64 // -1: nothing released
}

func (r *releaser) begin(p *mergelogProcessor, now int64) {
	*r = releaser{p: p, now: now, longest: -1}
	r.emitFn = r.emit
}

// release lets go what is due in s: what every active source's watermark passed, what waited
// max_delay, and late records.
func (r *releaser) release(s *stream) {
	r.s = s
	s.window.Release(r.now, r.emitFn)
	r.countLate(s)
}

// shed lets the oldest records of s go, in order, until it holds at most maxHeld.
func (r *releaser) shed(s *stream, maxHeld int) {
	excess := s.window.Len() - maxHeld
	if excess <= 0 {
		return
	}
	r.s = s
	r.early += excess
	s.window.Flush(r.now, func(slot uint32, heldFor int64) bool {
		r.emit(slot, heldFor)
		excess--
		return excess > 0
	})
	r.countLate(s)
}

// flush lets everything in s go, in order (at shutdown).
func (r *releaser) flush(s *stream) {
	r.s = s
	s.window.Flush(r.now, r.emitFn)
	r.countLate(s)
}

// countLate adds what the window of s counted late since it was last looked at.
func (r *releaser) countLate(s *stream) {
	r.late += s.window.Late() - s.lateSeen
	s.lateSeen = s.window.Late()
}

func (r *releaser) emit(slot uint32, heldFor int64) bool {
	if r.cur == nil {
		r.cur = newOutBatch()
	}
	r.cur.add(r.s.take(slot))
	r.released++
	r.longest = max(r.longest, heldFor)
	if r.cur.records >= outputBatchRecords {
		r.p.queue.push(r.cur)
		r.cur = nil
	}
	return true
}

// end queues the last batch and records what the release did.
func (r *releaser) end() {
	if r.cur != nil {
		r.p.queue.push(r.cur)
		r.cur = nil
	}
	r.p.tel.released(r.released, r.early, r.late, r.longest)
}

// outBatch is one output batch: the released records in order, each run of records that came
// with the same resource and scope under one copy of them, and the stored batches they came
// in, for acknowledging them once the next consumer accepted this one.
type outBatch struct {
	ld        plog.Logs
	records   int
	srcRL, rl plog.ResourceLogs
	srcSL     plog.ScopeLogs
	logs      plog.LogRecordSlice
	stored    []storedRun
}

// storedRun counts n consecutive records of one stored batch.
type storedRun struct {
	seq uint64
	n   int
}

func newOutBatch() *outBatch { return &outBatch{ld: plog.NewLogs()} }

func (b *outBatch) add(h heldRecord) {
	if b.records == 0 || h.rl != b.srcRL {
		b.srcRL, b.srcSL = h.rl, plog.ScopeLogs{}
		b.rl = b.ld.ResourceLogs().AppendEmpty()
		h.rl.Resource().CopyTo(b.rl.Resource())
		b.rl.SetSchemaUrl(h.rl.SchemaUrl())
	}
	if h.sl != b.srcSL {
		b.srcSL = h.sl
		sl := b.rl.ScopeLogs().AppendEmpty()
		h.sl.Scope().CopyTo(sl.Scope())
		sl.SetSchemaUrl(h.sl.SchemaUrl())
		b.logs = sl.LogRecords()
	}
	h.lr.MoveTo(b.logs.AppendEmpty())
	b.records++
	if h.seq == 0 {
		return
	}
	if n := len(b.stored); n > 0 && b.stored[n-1].seq == h.seq {
		b.stored[n-1].n++
	} else {
		b.stored = append(b.stored, storedRun{h.seq, 1})
	}
}
