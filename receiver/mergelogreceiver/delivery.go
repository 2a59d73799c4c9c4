package mergelogreceiver

import (
	"context"
	"time"

	"go.uber.org/zap"
)

// delivery takes entries into batches, hands each to the senders once full or due, and settles
// its records when it lands: accepted, or dropped under on_refusal. Sending never waits: a full
// batch with every sender busy parks (running) or waits in line for a sender (at Shutdown), and
// batches land in the run goroutine's select or in the drain, never inside a callback. Owned by
// the run goroutine.
type delivery struct {
	limits      BatchConfig
	rawBody     bool // encoding nop: bodies are Bytes values
	numbers     bool // include_file_record_number
	batch       *batch
	size        sizer // the batches': the next record is measured here before it goes into one
	senders     senders
	checkpoints *checkpoints // where the records of a batch that landed settle
	tel         *receiverTelemetry
	logger      *zap.Logger
	// parked: the batch is full and every sender is busy. Reading stops and the run goroutine
	// only polls (holding the files open) until a sender is free: a long outage downstream must
	// not stop it from opening the files a rotation creates, or it could not read them once
	// they are deleted. parkedAt is when it began.
	parked   bool
	parkedAt time.Time
	// draining: at Shutdown a full batch waits in line for a sender instead of parking (nothing
	// reads on, and the merge window's flush must not pile everything into one batch).
	draining bool
	// stopped: the drain's deadline cut a delivery off: nothing more is sent, nor read.
	stopped bool
}

func newDelivery(cfg *Config, checkpoints *checkpoints, tel *receiverTelemetry, logger *zap.Logger) *delivery {
	d := &delivery{
		limits: cfg.Batch, rawBody: cfg.Encoding == EncodingNop, numbers: cfg.IncludeFileRecordNumber,
		size: newSizer(), checkpoints: checkpoints, tel: tel, logger: logger,
	}
	d.batch = d.newBatch()
	return d
}

func (d *delivery) newBatch() *batch { return newBatch(d.limits.MaxRecords, &d.size) }

// add puts e into the batch, sending the batch first if e would take its encoded size past
// max_bytes and right after if it reaches max_records.
func (d *delivery) add(e *entry) {
	size, groupSize := d.batch.measure(e, d.rawBody, d.numbers)
	if d.batch.len() > 0 && d.batch.bytes+size+groupSize > int(d.limits.MaxBytes) {
		d.send()
	}
	d.batch.add(e, size)
	if d.batch.len() >= d.limits.MaxRecords {
		d.send()
	}
}

// sendIfDue sends the batch once it has been open for batch.timeout, and otherwise returns when
// it will have been; zero when the batch is empty.
func (d *delivery) sendIfDue(now time.Time) (due time.Time) {
	if d.batch.len() == 0 {
		return due
	}
	if at := d.batch.opened.Add(d.limits.Timeout); now.Before(at) {
		return at
	}
	d.send()
	return due
}

// send hands the batch to a sender. While max batches are in flight (the backpressure) the
// batch is parked instead: reading stops, and unpark sends it once a sender is free. At
// Shutdown (draining) it waits in line for a sender.
func (d *delivery) send() {
	n := d.batch.len()
	if n == 0 || d.stopped {
		return
	}
	if d.senders.busy() && !d.draining {
		if !d.parked {
			d.parked, d.parkedAt = true, time.Now()
		}
		return
	}
	logs, overLimit := d.batch.seal(int(d.limits.MaxBytes))
	d.senders.dispatch(&flight{b: d.batch, logs: logs, n: n, overLimit: overLimit, ctx: d.senders.ctx})
	d.batch = d.senders.takeBatch(d.newBatch)
}

// unpark sends the parked batch if a sender is free, and returns how long it was parked (zero
// if it still is, or was not).
func (d *delivery) unpark() (parked time.Duration) {
	if !d.parked || d.senders.busy() {
		return 0
	}
	d.parked = false
	parked = time.Since(d.parkedAt)
	d.send()
	return parked
}

// land takes back a batch a sender is done with: its records accepted or dropped, they settle
// and the files' checkpoints move; cut off by the drain's deadline, nothing of it settles (it is
// read again after a restart) and nothing more is sent.
func (d *delivery) land(ctx context.Context, f *flight) {
	if f.err != nil {
		if !d.stopped {
			d.logger.Warn("Stopping before the next consumer accepted a batch: it is not checkpointed, and is read again after a restart",
				zap.Int("records", f.n), zap.Error(f.err))
		}
		d.stopped = true
		d.senders.land(f, false)
		return
	}
	for _, m := range f.b.marks {
		d.checkpoints.settle(m.s, m.seq)
	}
	d.tel.counts.emitted += int64(f.b.len())
	if d.draining && ctx.Err() != nil {
		d.stopped = true // the drain's deadline: what waits for a sender is not sent
	}
	d.senders.land(f, !d.stopped)
	d.checkpoints.commit(ctx)
}

// drain, at Shutdown, sends the batch being built, a parked one included, and lets everything
// in flight or waiting for a sender land, within ctx's deadline (which ends the deliveries'
// context). What is not accepted by then is not checkpointed.
func (d *delivery) drain(ctx context.Context) {
	d.send()
	for d.senders.inFlight > 0 {
		d.land(ctx, <-d.senders.landed)
	}
}

// startDrain, at Shutdown, before the last entries come (the operators' and the merge window's):
// a parked batch goes out with the drain, a full one waits for a sender instead of parking, and
// the drain's own deadline decides whether anything more is sent.
func (d *delivery) startDrain() {
	d.parked, d.draining, d.stopped = false, true, false
}
