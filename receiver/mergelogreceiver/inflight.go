package mergelogreceiver

import (
	"context"
	"sync"
	"time"

	"go.opentelemetry.io/collector/pdata/plog"
	"go.uber.org/zap"
)

// flight is one batch on its way downstream: a sender goroutine delivers it and hands it back
// to the run goroutine, which alone settles its records in the files' ledgers. Batches may be
// accepted out of order; the ledgers commit each file only up to its first entry not settled,
// so a refused batch (retried in its sender) holds back the commits after it.
type flight struct {
	b         *batch
	logs      plog.Logs
	n         int
	overLimit bool            // larger than max_bytes once encoded: sent in halves
	ctx       context.Context // the deliveries' context: it ends at the drain's deadline
	err       error           // set when the drain's deadline interrupted the delivery: nothing of it settles
}

// senders deliver up to max batches at once (batch.max_in_flight; 1 with merge, whose promise
// is time order). The run goroutine goes on reading while they wait for acknowledgements.
type senders struct {
	max      int
	inFlight int
	queue    chan *flight // to the senders; buffered, so dispatch never blocks
	landed   chan *flight // back from them
	free     []*batch     // batches not in use
	wg       sync.WaitGroup
	// ctx is the deliveries' context. Shutdown does not end it: deliveries under way go on
	// until the drain's deadline (cancel then), so that a batch the next consumer is
	// accepting as the stop comes is not cut off and sent again.
	ctx    context.Context
	cancel context.CancelFunc
}

func (d *delivery) startSenders(n int, tel *receiverTelemetry) {
	s := &d.senders
	s.max = n
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.queue = make(chan *flight, n)
	s.landed = make(chan *flight, n)
	for range n {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			sender := d.newSender(tel)
			for f := range s.queue {
				f.err = d.deliver(sender, f)
				s.landed <- f
			}
		}()
	}
}

// stopSenders ends the sender goroutines once nothing is in flight.
func (d *delivery) stopSenders() {
	close(d.senders.queue)
	d.senders.wg.Wait()
	d.senders.cancel()
}

// takeBatch returns an empty batch, reusing one that landed.
func (d *delivery) takeBatch() *batch {
	s := &d.senders
	if n := len(s.free); n > 0 {
		b := s.free[n-1]
		s.free = s.free[:n-1]
		return b
	}
	return newBatch(d.limits.MaxRecords, &d.size)
}

// send hands the batch to a sender. While max batches are in flight (the backpressure) the
// batch is parked instead: reading stops, and unpark sends it once a slot frees. At Shutdown
// (finishing) it waits for a slot.
func (r *mergelogReceiver) send() {
	d := &r.out
	n := d.batch.len()
	if n == 0 || r.stopping {
		return
	}
	if d.senders.inFlight >= d.senders.max {
		if !d.finishing {
			if !d.parked {
				d.parked, d.parkedAt = true, time.Now()
			}
			return
		}
		for d.senders.inFlight >= d.senders.max && !r.stopping {
			select {
			case f := <-d.senders.landed:
				r.land(f)
			case <-r.ctx.Done():
				r.stopping = true // the drain's deadline
			}
		}
		if r.stopping {
			return
		}
	}
	logs, overLimit := d.batch.seal(int(d.limits.MaxBytes))
	f := &flight{b: d.batch, logs: logs, n: n, overLimit: overLimit, ctx: d.senders.ctx}
	d.batch = d.takeBatch()
	d.senders.inFlight++
	d.senders.queue <- f
}

// unpark sends the parked batch if a slot is free; the merge window's clock did not run
// while it was parked (a stall downstream is not waiting for the inputs).
func (r *mergelogReceiver) unpark() {
	d := &r.out
	if !d.parked || d.senders.inFlight >= d.senders.max {
		return
	}
	d.parked = false
	if r.merge != nil {
		r.merge.paused += time.Since(d.parkedAt)
	}
	r.send()
}

// land takes back a batch a sender is done with: its records accepted or dropped, they settle and the files' checkpoints move; cut off by the drain's deadline, nothing of it
// settles (it is read again after a restart) and nothing more is sent.
func (r *mergelogReceiver) land(f *flight) {
	d := &r.out
	d.senders.inFlight--
	if f.err != nil {
		if !r.stopping {
			r.set.Logger.Warn("Stopping before the next consumer accepted a batch: it is not checkpointed, and is read again after a restart",
				zap.Int("records", f.n), zap.Error(f.err))
		}
		r.stopping = true
		return
	}
	for _, m := range f.b.marks {
		d.checkpoints.settle(m.s, m.seq)
	}
	r.tel.counts.emitted += int64(f.b.len())
	f.b.reset()
	d.senders.free = append(d.senders.free, f.b)
	d.checkpoints.commit(r.ctx)
}

// drainSenders, at Shutdown, lets what is in flight land, then sends the batch being built and
// waits for it, all within the drain's deadline (which ends the deliveries' context). What is
// not accepted by then is not checkpointed.
func (r *mergelogReceiver) drainSenders() {
	d := &r.out
	for d.senders.inFlight > 0 {
		r.land(<-d.senders.landed)
	}
	r.send()
	for d.senders.inFlight > 0 {
		r.land(<-d.senders.landed)
	}
}
