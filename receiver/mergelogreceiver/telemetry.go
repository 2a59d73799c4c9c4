package mergelogreceiver

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/mergelog/otelcol-mergelog/internal/filetrack"
	"github.com/mergelog/otelcol-mergelog/internal/mergewindow"
	"github.com/mergelog/otelcol-mergelog/internal/refusal"
	"github.com/mergelog/otelcol-mergelog/receiver/mergelogreceiver/internal/metadata"
)

// receiverTelemetry is the receiver's own metrics. The hot path only increments counts; flush hands
// them to the instruments once per loop of the run goroutine.
type receiverTelemetry struct {
	builder *metadata.TelemetryBuilder
	// Each measurement names the receiver, as the collector's own receiver metrics do, so that
	// two mergelog receivers are told apart.
	self, permanent, retryable metric.MeasurementOption
	// The checkpoint writes' attributes: failed or not.
	wrote, writeFailed  metric.MeasurementOption
	dropped             [refusal.Other + 1]metric.MeasurementOption // by class
	counts              counts
	lateSeen            int64 // window.Late() at the last flush
	bytesSeen, lostSeen int64 // the tracker's BytesRead and BytesLost at the last flush
}

// counts accumulates between two flushes.
type counts struct {
	emitted, untimed int64
	partialsCut      int64 // unfinished entries emitted for max_partial_bytes
	unjoined         int64 // split lines emitted without their rest (splitwait.go)
	// Checkpoint writes (checkpoint.go), done and failed.
	checkpointWrites, checkpointFailed int64
}

func newTelemetry(builder *metadata.TelemetryBuilder, id string) receiverTelemetry {
	self := attribute.String(metadata.AttributeReceiver, id)
	t := receiverTelemetry{
		builder:     builder,
		self:        metric.WithAttributeSet(attribute.NewSet(self)),
		permanent:   metric.WithAttributeSet(attribute.NewSet(self, attribute.Bool(metadata.AttributePermanent, true))),
		retryable:   metric.WithAttributeSet(attribute.NewSet(self, attribute.Bool(metadata.AttributePermanent, false))),
		wrote:       metric.WithAttributeSet(attribute.NewSet(self, attribute.Bool(metadata.AttributeFailed, false))),
		writeFailed: metric.WithAttributeSet(attribute.NewSet(self, attribute.Bool(metadata.AttributeFailed, true))),
	}
	for c := range t.dropped {
		t.dropped[c] = metric.WithAttributeSet(attribute.NewSet(self, attribute.String(metadata.AttributeClass, refusal.Class(c).String())))
	}
	return t
}

// flush hands the counts, the merge window's late entries, the tracker's figures and the read
// lag (reading.lag) to the instruments.
func (t *receiverTelemetry) flush(tracker *filetrack.Tracker, window *mergewindow.Window[uint32], lag time.Duration) {
	ctx := context.Background()
	addWith := func(v int64, inst metric.Int64Counter, attrs metric.MeasurementOption) {
		if v != 0 {
			inst.Add(ctx, v, attrs)
		}
	}
	add := func(v int64, inst metric.Int64Counter) { addWith(v, inst, t.self) }
	add(t.counts.emitted, t.builder.ReceiverMergelogRecordsEmitted)
	add(t.counts.untimed, t.builder.ReceiverMergelogEntriesUntimed)
	add(t.counts.partialsCut, t.builder.ReceiverMergelogPartialsCut)
	add(t.counts.unjoined, t.builder.ReceiverMergelogSplitLinesUnjoined)
	addWith(t.counts.checkpointWrites, t.builder.ReceiverMergelogCheckpointWrites, t.wrote)
	addWith(t.counts.checkpointFailed, t.builder.ReceiverMergelogCheckpointWrites, t.writeFailed)
	t.counts = counts{}
	t.builder.ReceiverMergelogReadLag.Record(ctx, lag.Seconds(), t.self)
	if window != nil {
		late := window.Late()
		add(late-t.lateSeen, t.builder.ReceiverMergelogEntriesLate)
		t.lateSeen = late
	}
	st := tracker.Stats()
	add(st.BytesRead-t.bytesSeen, t.builder.ReceiverMergelogBytesRead)
	t.bytesSeen = st.BytesRead
	add(st.BytesLost-t.lostSeen, t.builder.ReceiverMergelogBytesLost)
	t.lostSeen = st.BytesLost
	t.builder.ReceiverMergelogFilesOpen.Record(ctx, int64(st.FilesOpen), t.self)
}

// recordHold records how long, in nanoseconds, the longest-held entry of a release waited.
func (t *receiverTelemetry) recordHold(nanos int64) {
	t.builder.ReceiverMergelogMergeHoldDuration.Record(context.Background(), float64(nanos)/1e9, t.self)
}

// checkpointCorrupt counts the checkpoint keys Start could not decode and left out.
func (t *receiverTelemetry) checkpointCorrupt(ctx context.Context, keys int) {
	if keys > 0 {
		t.builder.ReceiverMergelogCheckpointCorrupt.Add(ctx, int64(keys), t.self)
	}
}

// Refused counts one call the next consumer refused (refusal.Observer).
func (t *receiverTelemetry) Refused(ctx context.Context, c refusal.Class) {
	attrs := t.retryable
	if c != refusal.Retryable {
		attrs = t.permanent
	}
	t.builder.ReceiverMergelogConsumeErrors.Add(ctx, 1, attrs)
}

// Retrying counts one wait before a batch is sent again (refusal.Observer).
func (t *receiverTelemetry) Retrying(ctx context.Context) {
	t.builder.ReceiverMergelogConsumeRetries.Add(ctx, 1, t.self)
}

// Dropped counts records dropped for a refusal of class c (refusal.Observer).
func (t *receiverTelemetry) Dropped(ctx context.Context, n int, c refusal.Class) {
	t.builder.ReceiverMergelogRecordsDropped.Add(ctx, int64(n), t.dropped[c])
}
