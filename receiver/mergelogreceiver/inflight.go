package mergelogreceiver

import (
	"context"
	"slices"
	"sync"
	"time"

	"go.opentelemetry.io/collector/pdata/plog"
)

// flight is one batch on its way downstream: a sender goroutine delivers it and hands it back
// to the run goroutine, which alone settles its records in the files' ledgers. Batches may be
// accepted out of order; the ledgers commit each file only up to its first entry not settled,
// so a refused batch (retried in its sender) holds back the commits after it.
type flight struct {
	b    *batch
	logs plog.Logs // what is left to deliver (the records a partial failure names)
	n    int
	seq  uint64          // dispatch order
	ctx  context.Context //nolint:containedctx // the delivery's: the run's, or the drain's at Shutdown
	err  error           // set when Shutdown interrupted the delivery: nothing of it settles
}

// senders deliver up to max batches at once (batch.max_in_flight; 1 with merge, whose promise
// is time order). The run goroutine goes on reading while they wait for acknowledgements.
type senders struct {
	max      int
	inFlight int
	seq      uint64
	queue    chan *flight // to the senders; buffered, so dispatch never blocks
	landed   chan *flight // back from them
	free     []*batch     // batches not in use
	stopped  []*flight    // interrupted by Shutdown, for the drain to try again in order
	wg       sync.WaitGroup
}

func (d *delivery) startSenders(max int, tel *receiverTelemetry) {
	s := &d.senders
	s.max = max
	s.queue = make(chan *flight, max)
	s.landed = make(chan *flight, max)
	for range max {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			for f := range s.queue {
				f.err = d.deliver(f, tel)
				s.landed <- f
			}
		}()
	}
}

// stopSenders ends the sender goroutines once nothing is in flight.
func (d *delivery) stopSenders() {
	close(d.senders.queue)
	d.senders.wg.Wait()
}

// takeBatch returns an empty batch, reusing one that landed.
func (d *delivery) takeBatch() *batch {
	s := &d.senders
	if n := len(s.free); n > 0 {
		b := s.free[n-1]
		s.free = s.free[:n-1]
		return b
	}
	return newBatch(d.limits.MaxRecords)
}

// send hands the batch to a sender, first waiting for a slot while max batches are in flight
// (the backpressure: nothing is read meanwhile).
func (r *mergelogReceiver) send() {
	d := &r.out
	n := d.batch.len()
	if n == 0 || r.stopping {
		return
	}
	if d.senders.inFlight >= d.senders.max {
		start := time.Now()
		for d.senders.inFlight >= d.senders.max && !r.stopping {
			r.land(<-d.senders.landed)
		}
		if r.merge != nil {
			r.merge.paused += time.Since(start)
		}
		r.read.pollDue()
		if r.stopping {
			return
		}
	}
	d.senders.seq++
	f := &flight{b: d.batch, logs: d.batch.logs, n: n, seq: d.senders.seq, ctx: r.ctx}
	d.batch = d.takeBatch()
	d.senders.inFlight++
	d.senders.queue <- f
}

// land takes back a batch a sender is done with: accepted or refused for good, its records
// settle and the files' checkpoints move; interrupted by Shutdown, it waits for the drain.
func (r *mergelogReceiver) land(f *flight) {
	d := &r.out
	d.senders.inFlight--
	if f.err != nil {
		r.stopping = true
		d.senders.stopped = append(d.senders.stopped, f)
		return
	}
	for _, m := range f.b.marks {
		d.settle(m.s, m.seq)
	}
	r.tel.counts.emitted += int64(f.b.len())
	f.b.reset()
	d.senders.free = append(d.senders.free, f.b)
	d.commit(r.ctx, r.read.tracker)
}

// drainSenders, at Shutdown, lets what is in flight land, then tries once more, in their
// order and with the drain's deadline, the deliveries the stop interrupted; then the batch
// being built. What is still not accepted is not checkpointed.
func (r *mergelogReceiver) drainSenders(ctx context.Context) {
	d := &r.out
	for d.senders.inFlight > 0 {
		r.land(<-d.senders.landed)
	}
	stopped := d.senders.stopped
	d.senders.stopped = nil
	slices.SortFunc(stopped, func(a, b *flight) int { return int(a.seq - b.seq) })
	r.stopping = false
	for _, f := range stopped {
		if r.stopping {
			return
		}
		f.ctx, f.err = ctx, nil
		f.err = d.deliver(f, &r.tel)
		d.senders.inFlight++
		r.land(f)
	}
	r.send()
	for d.senders.inFlight > 0 {
		r.land(<-d.senders.landed)
	}
}
