package mergelogreceiver

import (
	"errors"
	"math/rand/v2"
	"time"

	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.opentelemetry.io/collector/receiver/receiverhelper"
	"go.uber.org/zap"

	"github.com/mergelog/otelcol-mergelog/internal/ledger"
)

// delivery takes entries into batches, hands them to the next consumer and settles them in
// their files' ledgers once accepted (or refused for good); commit then moves the files'
// checkpoints. Owned by the run goroutine.
type delivery struct {
	next    consumer.Logs
	obsrecv *receiverhelper.ObsReport
	logger  *zap.Logger
	retry   RetryConfig
	limits  BatchConfig
	rawBody bool // encoding nop: bodies are Bytes values
	numbers bool // include_file_record_number
	batch   *batch
	touched []*tailedFile // files with entries settled since the last commit
	store   checkpointStore
	senders senders
	// parked: the batch is full and every sender is busy. Reading stops and the run goroutine
	// only polls (holding the files open) until a slot frees: a long outage downstream must not
	// stop it from opening the files a rotation creates, or it could not read them once they
	// are deleted. parkedAt is when it began.
	parked   bool
	parkedAt time.Time
	// finishing: at Shutdown a full batch waits for a slot instead of parking (nothing reads
	// on, and the merge window's flush must not pile everything into one batch).
	finishing bool
}

// add puts e into the batch, sending the batch first if e would take it past max_bytes and
// right after if it reaches max_records.
func (r *mergelogReceiver) add(e *entry) {
	d := &r.out
	size := len(e.body) + e.s.attrs.bytes
	if d.batch.len() > 0 && d.batch.bytes+size > int(d.limits.MaxBytes) {
		r.send()
	}
	d.batch.add(e, d.rawBody, d.numbers)
	if d.batch.len() >= d.limits.MaxRecords {
		r.send()
	}
}

// deliver calls ConsumeLogs until the batch is accepted or refused for good (both nil: the
// records are settled either way), retrying retryable errors with exponential backoff. It
// returns ctx's error if ctx ends first.
func (d *delivery) deliver(f *flight, tel *receiverTelemetry) error {
	ctx, logs, n := f.ctx, f.logs, f.n
	backoff := d.retry.InitialInterval
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		octx := d.obsrecv.StartLogsOp(ctx)
		err := d.next.ConsumeLogs(octx, logs)
		d.obsrecv.EndLogsOp(octx, "text", n, err)
		if err == nil {
			return nil
		}
		if consumererror.IsPermanent(err) {
			tel.consumeError(ctx, true)
			d.logger.Error("The next consumer refused a batch for good; skipping it",
				zap.Error(err), zap.Int("dropped_records", n))
			return nil
		}
		tel.consumeError(ctx, false)
		// Only the records the consumer reports as failed are sent again.
		var partial consumererror.Logs
		if errors.As(err, &partial) {
			logs = partial.Data()
			n = logs.LogRecordCount()
			f.logs, f.n = logs, n
		}
		// Jitter of ±50% keeps receivers behind one failing exporter from retrying in step.
		wait := time.Duration(float64(backoff) * (0.5 + rand.Float64()))
		d.logger.Debug("The next consumer refused a batch; retrying",
			zap.Error(err), zap.Duration("interval", wait), zap.Int("records", n))
		if timer == nil {
			timer = time.NewTimer(wait)
		} else {
			timer.Reset(wait)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
		}
		tel.consumeRetry(ctx)
		backoff = min(2*backoff, d.retry.MaxInterval)
	}
}

// settle marks one entry of s as done with; commit then moves its file's checkpoint over it.
func (d *delivery) settle(s *stream, seq ledger.Seq) {
	s.books.Entries.Settle(seq)
	d.touch(s.f)
}

// touch has f's checkpoint moved at the next commit, as far as its ledger allows.
func (d *delivery) touch(f *tailedFile) {
	if !f.touched {
		f.touched = true
		d.touched = append(d.touched, f)
	}
}
