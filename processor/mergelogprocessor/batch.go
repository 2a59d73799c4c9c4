package mergelogprocessor // import "github.com/mergelog/otelcol-mergelog/processor/mergelogprocessor"

import (
	"go.opentelemetry.io/collector/pdata/plog"
)

// outBatch is one output batch: the released records in order, each run of records that came
// with the same resource and scope under one copy of them, and the stored batches they came
// in, for acknowledging them once the next consumer accepted this one.
//
// Records are moved in runs: consecutive records of one origin, in its order, are moved
// together when the run ends, so that an origin released whole (a batch whose records are in
// no other source's way) is moved as one slice, with no record copied or allocated.
type outBatch struct {
	ld      plog.Logs
	records int
	stored  []storedRun
	// The resource and scope whose copies the last run went under, and its records.
	srcRL plog.ResourceLogs
	srcSL plog.ScopeLogs
	logs  plog.LogRecordSlice
	// The run of records added since the last one was moved: records [first, first+n) of
	// origin slot of g.
	g           *group
	slot        uint32
	first, n    int
	hasResource bool
}

// storedRun counts n consecutive records of one stored batch.
type storedRun struct {
	seq uint64
	n   int
}

func newOutBatch() *outBatch { return &outBatch{ld: plog.NewLogs()} }

// add appends the record ref of g, already counted out of its origin.
func (b *outBatch) add(g *group, ref recordRef) {
	b.records++
	if b.n > 0 && g == b.g && ref.origin == b.slot && int(ref.rec) == b.first+b.n {
		b.n++
		return
	}
	b.moveRun()
	b.g, b.slot, b.first, b.n = g, ref.origin, int(ref.rec), 1
}

// finish moves the last run: the batch is complete.
func (b *outBatch) finish() { b.moveRun() }

// moveRun moves the pending run's records into the batch, under the current resource and scope
// copies if it came with the same ones, else under new copies, and frees their origin if none
// of its records is held any more. (Freed here, not as its last record leaves the window, so
// that the run can name it by its slot: no slot is reused before the release ends.)
func (b *outBatch) moveRun() {
	if b.n == 0 {
		return
	}
	r := &b.g.origins[b.slot]
	if !b.hasResource || r.rl != b.srcRL {
		b.srcRL, b.srcSL, b.hasResource = r.rl, plog.ScopeLogs{}, true
		rl := b.ld.ResourceLogs().AppendEmpty()
		r.rl.Resource().CopyTo(rl.Resource())
		rl.SetSchemaUrl(r.rl.SchemaUrl())
	}
	if r.sl != b.srcSL {
		b.srcSL = r.sl
		rls := b.ld.ResourceLogs()
		scopes := rls.At(rls.Len() - 1).ScopeLogs()
		if scopes.Len() == 0 {
			scopes.EnsureCapacity(1) // most resource runs have one scope: no room for more
		}
		sl := scopes.AppendEmpty()
		r.sl.Scope().CopyTo(sl.Scope())
		sl.SetSchemaUrl(r.sl.SchemaUrl())
		b.logs = sl.LogRecords()
	}
	if b.first == 0 && b.n == r.recs.Len() {
		// All the origin's records, in its order: the slice itself moves.
		r.recs.MoveAndAppendTo(b.logs)
	} else {
		if b.logs.Len() == 0 {
			b.logs.EnsureCapacity(b.n)
		}
		for i := b.first; i < b.first+b.n; i++ {
			r.recs.At(i).MoveTo(b.logs.AppendEmpty())
		}
	}
	if r.seq != 0 {
		if k := len(b.stored); k > 0 && b.stored[k-1].seq == r.seq {
			b.stored[k-1].n += b.n
		} else {
			b.stored = append(b.stored, storedRun{r.seq, b.n})
		}
	}
	if r.held == 0 {
		b.g.free(b.slot)
	}
	b.g, b.n = nil, 0
}
