package mergelogreceiver

import (
	"go.opentelemetry.io/collector/pdata/plog"

	stanza "github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/entry"

	"github.com/mergelog/otelcol-mergelog/internal/container"
	"github.com/mergelog/otelcol-mergelog/internal/ledger"
)

// entry is one log entry on its way into a batch: the receiver owns its body (the joiner's
// bytes are only valid during its callback, and the merge window holds entries for a while).
// With operators, what comes out of them rides in out instead.
type entry struct {
	s        *stream
	seq      ledger.Seq // its place in s's ledger
	start    int64      // offset of its first byte
	record   int64      // log.file.record_number
	body     string     // with out, its body when a string (for batch.max_bytes)
	at       int64      // Unix nanoseconds; meaningful when timed
	timed    bool
	observed int64
	logtag   string         // the native container operator's logtag attribute
	out      *stanza.Entry  // what the operators made of it
	rec      plog.LogRecord // with native, what the fast chain made of it
	native   bool
	unmarked bool // a copy made by a fan-out: no ledger entry of its own
	shared   bool // out may be another record's too (a fan-out): not recycled
}

// emitEntry is a joiner's sink for stream s: it numbers the entry, shapes it and sends it on,
// through the operators, to the merge window or straight into the batch.
func (r *mergelogReceiver) emitEntry(s *stream, text []byte, end int64) {
	f := s.f
	first := s.books.Lines.PopThrough(end)
	f.records++
	seq := s.books.Entries.Add(first.Start, f.records)
	text = r.body.shape(text)
	if len(text) == 0 {
		// file_log drops empty entries but still numbers them.
		r.checkpoints.settle(s, seq)
		return
	}
	e := entry{s: s, seq: seq, start: first.Start, record: f.records, body: r.body.body(text), observed: r.read.observed}
	if s.kind != container.StreamNone {
		e.at, e.timed = first.At, true // the runtime's time, unless a timestamp section finds one
		e.logtag = s.logtag
	}
	if p := r.compiled.parser; p != nil {
		if at, ok := p.Parse(text); ok {
			e.at, e.timed = at, true
		}
	}
	if !e.timed && (r.compiled.parser != nil || f.parser != nil) {
		r.tel.counts.untimed++
	}
	if r.chain != nil {
		r.toChain(&e)
		return
	}
	r.emitOutput(&e)
}

// emitOutput sends an entry ready for its record to the merge window or into the batch.
func (r *mergelogReceiver) emitOutput(e *entry) {
	if r.merge == nil {
		r.out.add(e)
		return
	}
	r.merge.push(e.s.f.input, e)
}
