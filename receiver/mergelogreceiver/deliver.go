package mergelogreceiver

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.uber.org/zap"
)

// metricAttrs are the attribute sets of the receiver's measurements: each names the receiver,
// as the collector's own receiver metrics do, so that two mergelog receivers are told apart.
type metricAttrs struct {
	self, permanent, retryable metric.MeasurementOption
}

func newMetricAttrs(id string) metricAttrs {
	self := attribute.String("receiver", id)
	return metricAttrs{
		self:      metric.WithAttributeSet(attribute.NewSet(self)),
		permanent: metric.WithAttributeSet(attribute.NewSet(self, attribute.Bool("permanent", true))),
		retryable: metric.WithAttributeSet(attribute.NewSet(self, attribute.Bool("permanent", false))),
	}
}

// add puts e into the batch, sending the batch first if e would take it past max_bytes and
// right after if it reaches max_records.
func (r *mergelogReceiver) add(e *entry) {
	size := len(e.body) + e.s.attrs.bytes
	if r.batch.len() > 0 && r.batch.bytes+size > int(r.cfg.Batch.MaxBytes) {
		r.send()
	}
	r.batch.add(e, r.cfg.Encoding == encodingNop, r.cfg.IncludeFileRecordNumber)
	if r.batch.len() >= r.cfg.Batch.MaxRecords {
		r.send()
	}
}

// send delivers the batch (blocking: while it retries nothing is read, which is the
// backpressure), then settles its records and checkpoints. A delivery interrupted by Shutdown
// leaves the batch in place for the final attempt.
func (r *mergelogReceiver) send() {
	n := r.batch.len()
	if n == 0 || r.stopping {
		return
	}
	start := time.Now()
	err := r.deliver(r.ctx, r.batch.logs, n)
	r.paused += time.Since(start)
	r.pollDue()
	if err != nil {
		r.stopping = true
		return
	}
	for _, m := range r.batch.marks {
		r.settle(m.s, m.seq)
	}
	r.counts.emitted += int64(n)
	r.batch.reset()
	r.commit()
}

// deliver calls ConsumeLogs until the batch is accepted or refused for good (both nil: the
// records are settled either way), retrying retryable errors with exponential backoff. It
// returns ctx's error if ctx ends first.
func (r *mergelogReceiver) deliver(ctx context.Context, logs plog.Logs, n int) error {
	backoff := r.cfg.RetryOnFailure.InitialInterval
	var timer *time.Timer
	for {
		octx := r.obsrecv.StartLogsOp(ctx)
		err := r.next.ConsumeLogs(octx, logs)
		r.obsrecv.EndLogsOp(octx, "text", n, err)
		if err == nil {
			return nil
		}
		if consumererror.IsPermanent(err) {
			r.tel.ReceiverMergelogConsumeErrors.Add(ctx, 1, r.metricAttrs.permanent)
			r.logger.Error("The next consumer refused a batch for good; skipping it",
				zap.Error(err), zap.Int("dropped_records", n))
			return nil
		}
		r.tel.ReceiverMergelogConsumeErrors.Add(ctx, 1, r.metricAttrs.retryable)
		// Only the records the consumer reports as failed are sent again.
		var partial consumererror.Logs
		if errors.As(err, &partial) {
			logs = partial.Data()
			n = logs.LogRecordCount()
		}
		// Jitter of ±50% keeps receivers behind one failing exporter from retrying in step.
		wait := time.Duration(float64(backoff) * (0.5 + rand.Float64()))
		r.logger.Debug("The next consumer refused a batch; retrying",
			zap.Error(err), zap.Duration("interval", wait), zap.Int("records", n))
		if timer == nil {
			timer = time.NewTimer(wait)
			defer timer.Stop()
		} else {
			timer.Reset(wait)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
		}
		r.tel.ReceiverMergelogConsumeRetries.Add(ctx, 1, r.metricAttrs.self)
		backoff = min(2*backoff, r.cfg.RetryOnFailure.MaxInterval)
	}
}

// settle marks one entry of s as done with; commit then moves its file's checkpoint over it.
func (r *mergelogReceiver) settle(s *stream, seq int64) {
	s.out.settle(seq)
	if f := s.f; !f.touched {
		f.touched = true
		r.touched = append(r.touched, f)
	}
}

// commit moves each touched file's committed offset up to the first byte still needed and
// writes the checkpoint. A failed write is tried again at the next commit, at the latest at
// Shutdown.
func (r *mergelogReceiver) commit() {
	for _, f := range r.touched {
		f.touched = false
		if offset, records := f.committable(); r.tracker.Commit(f.id, offset, records) {
			r.unsaved = true
		}
	}
	r.touched = r.touched[:0]
	if !r.unsaved || r.storage == nil {
		return
	}
	if err := r.storage.Set(r.ctx, checkpointKey, r.tracker.Checkpoint()); err != nil {
		r.logger.Error("Writing the checkpoint failed; the stored offsets stay behind for now",
			zap.Error(err))
		return
	}
	r.unsaved = false
}

// counts accumulates telemetry between two records, so the hot path only increments integers.
type counts struct {
	emitted, untimed int64
}

// record hands the counts to the instruments.
func (r *mergelogReceiver) record() {
	ctx := context.Background()
	add := func(v int64, inst metric.Int64Counter) {
		if v != 0 {
			inst.Add(ctx, v, r.metricAttrs.self)
		}
	}
	add(r.counts.emitted, r.tel.ReceiverMergelogRecordsEmitted)
	add(r.counts.untimed, r.tel.ReceiverMergelogEntriesUntimed)
	r.counts = counts{}
	if r.window != nil {
		late := r.window.Late()
		add(late-r.lateSeen, r.tel.ReceiverMergelogEntriesLate)
		r.lateSeen = late
	}
	st := r.tracker.Stats()
	add(st.BytesRead-r.bytesSeen, r.tel.ReceiverMergelogBytesRead)
	r.bytesSeen = st.BytesRead
	r.tel.ReceiverMergelogFilesOpen.Record(ctx, int64(st.FilesOpen), r.metricAttrs.self)
}
