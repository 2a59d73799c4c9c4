package mergelogreceiver

import "github.com/mergelog/otelcol-mergelog/internal/container"

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
	e := entry{s: s, seq: seq, start: first.Start, record: f.records, body: r.body.body(text), observed: f.observed}
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
