package mergelogprocessor // import "github.com/mergelog/otelcol-mergelog/processor/mergelogprocessor"

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
	g      *group // whose window is emitting
	emitFn func(ref recordRef, heldFor int64) bool

	released, early int
	late            int64
	longest         int64 // -1: nothing released
}

func (r *releaser) begin(p *mergelogProcessor, now int64) {
	*r = releaser{p: p, now: now, longest: -1}
	r.emitFn = r.emit
}

// release lets go what is due in g: what every active source's watermark passed, what waited
// max_delay, and late records.
func (r *releaser) release(g *group) {
	r.g = g
	g.window.Release(r.now, r.emitFn)
	r.countLate(g)
}

// shed lets the oldest records of g go, in order, until it holds at most maxHeld.
func (r *releaser) shed(g *group, maxHeld int) {
	excess := g.window.Len() - maxHeld
	if excess <= 0 {
		return
	}
	r.g = g
	r.early += excess
	g.window.Flush(r.now, func(ref recordRef, heldFor int64) bool {
		r.emit(ref, heldFor)
		excess--
		return excess > 0
	})
	r.countLate(g)
}

// flush lets everything in g go, in order (at shutdown).
func (r *releaser) flush(g *group) {
	r.g = g
	g.window.Flush(r.now, r.emitFn)
	r.countLate(g)
}

// countLate adds what the window of g counted late since it was last looked at.
func (r *releaser) countLate(g *group) {
	r.late += g.window.Late() - g.lateSeen
	g.lateSeen = g.window.Late()
}

func (r *releaser) emit(ref recordRef, heldFor int64) bool {
	if r.cur == nil {
		r.cur = newOutBatch()
	}
	r.g.origins[ref.origin].held--
	r.cur.add(r.g, ref)
	r.released++
	r.longest = max(r.longest, heldFor)
	if r.cur.records >= outputBatchRecords {
		r.push()
	}
	return true
}

// end queues the last batch and records what the release did.
func (r *releaser) end() {
	if r.cur != nil {
		r.push()
	}
	r.p.tel.released(r.released, r.early, r.late, r.longest)
}

func (r *releaser) push() {
	r.cur.finish()
	r.p.queue.push(r.cur)
	r.cur = nil
}
