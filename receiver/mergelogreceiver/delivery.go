package mergelogreceiver

import (
	"context"
	"time"

	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/receiver/receiverhelper"
	"go.uber.org/zap"

	"github.com/mergelog/otelcol-mergelog/internal/refusal"
)

// delivery takes entries into batches, hands them to the next consumer and settles them in
// their files' ledgers once accepted (or dropped under on_refusal); commit then moves the
// files' checkpoints. Owned by the run goroutine.
type delivery struct {
	next        consumer.Logs
	obsrecv     *receiverhelper.ObsReport
	logger      *zap.Logger
	retry       RetryConfig
	onRefusal   refusal.Policy
	limits      BatchConfig
	rawBody     bool // encoding nop: bodies are Bytes values
	numbers     bool // include_file_record_number
	batch       *batch
	size        sizer        // the batches': the next record is measured here before it goes into one
	checkpoints *checkpoints // where accepted records settle
	senders     senders
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

// add puts e into the batch, sending the batch first if e would take its encoded size past
// max_bytes and right after if it reaches max_records.
func (r *mergelogReceiver) add(e *entry) {
	d := &r.out
	size, groupSize := d.batch.measure(e, d.rawBody, d.numbers)
	if d.batch.len() > 0 && d.batch.bytes+size+groupSize > int(d.limits.MaxBytes) {
		r.send()
	}
	d.batch.add(e, size)
	if d.batch.len() >= d.limits.MaxRecords {
		r.send()
	}
}

// newSender makes the refusal sender of one sender goroutine: each call goes through the
// receiver's obsreport, and each refusal is handled as on_refusal says.
func (d *delivery) newSender(tel *receiverTelemetry) *refusal.Sender {
	return &refusal.Sender{
		Policy:  &d.onRefusal,
		Backoff: refusal.Backoff{Initial: d.retry.InitialInterval, Max: d.retry.MaxInterval},
		Consume: func(ctx context.Context, ld plog.Logs) error {
			octx := d.obsrecv.StartLogsOp(ctx)
			err := d.next.ConsumeLogs(octx, ld)
			d.obsrecv.EndLogsOp(octx, "text", ld.LogRecordCount(), err)
			return err
		},
		Observer: tel,
		Logger:   d.logger,
	}
}

// deliver hands f's batch to the next consumer until each record is accepted, or dropped for a
// refusal as on_refusal says (either way it settles: a dropped record is counted and logged
// with its file and offset). It returns ctx's error if the drain's deadline ends it first.
func (d *delivery) deliver(s *refusal.Sender, f *flight) error {
	return s.Deliver(f.ctx, f.logs, f.overLimit, f.b.origins.name)
}
