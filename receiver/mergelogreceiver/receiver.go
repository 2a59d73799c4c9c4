package mergelogreceiver

import (
	"context"
	"errors"
	"sync"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/receiverhelper"
	"go.uber.org/zap"

	"github.com/mergelog/otelcol-mergelog/internal/filetrack"
	"github.com/mergelog/otelcol-mergelog/internal/refusal"
	"github.com/mergelog/otelcol-mergelog/internal/storageext"
	"github.com/mergelog/otelcol-mergelog/receiver/mergelogreceiver/internal/metadata"
	"github.com/mergelog/otelcol-mergelog/receiver/mergelogreceiver/internal/stanzachain"
)

// drainTimeout bounds how long Shutdown tries to deliver what was built; what is not accepted by
// then is not checkpointed, so it is read again after a restart.
const drainTimeout = 5 * time.Second

// mergelogReceiver is one goroutine (run) over the collaborators it owns between Start and the
// end of Shutdown: reading (files, polls, read rounds), the operators (chain), the merge stage
// (merge enabled), delivery (batches, senders), checkpoints and telemetry. Data flows reading →
// streams → entries (emitEntry) → operators → merge → delivery; acknowledgements flow from
// delivery into the files' ledgers, and from there through the tracker into storage.
type mergelogReceiver struct {
	cfg      *Config
	set      receiver.Settings
	compiled *compiled
	body     bodyRules // what an entry's text becomes as its record's body

	read        *reading
	chain       *chain      // nil without operators
	merge       *mergeStage // nil without merge
	out         *delivery
	checkpoints *checkpoints
	tel         receiverTelemetry

	newSender func() *refusal.Sender // of each sender goroutine
	cancel    context.CancelFunc
	drain     chan context.Context
	done      chan struct{}
	shutdown  sync.Once
}

func newReceiver(set receiver.Settings, cfg *Config, next consumer.Logs) (*mergelogReceiver, error) {
	c, err := cfg.compile()
	if err != nil {
		return nil, err
	}
	obsrecv, err := receiverhelper.NewObsReport(receiverhelper.ObsReportSettings{
		ReceiverID:             set.ID,
		ReceiverCreateSettings: set,
	})
	if err != nil {
		return nil, err
	}
	builder, err := metadata.NewTelemetryBuilder(set.TelemetrySettings)
	if err != nil {
		return nil, err
	}
	ch, err := newChain(cfg, set.TelemetrySettings)
	if err != nil {
		return nil, err
	}
	r := &mergelogReceiver{
		cfg: cfg, set: set, compiled: c, body: newBodyRules(cfg, c), chain: ch,
		tel: newTelemetry(builder, set.ID.String()),
	}
	r.newSender = newRefusalSender(cfg, next, obsrecv, &r.tel, set.Logger)
	return r, nil
}

// Start opens the checkpoint, if storage is configured, and starts the one goroutine that polls,
// reads and delivers.
func (r *mergelogReceiver) Start(ctx context.Context, host component.Host) error {
	r.warnIgnoredRetryKeys()
	r.warnMaxBytes()
	header, err := newHeaderParser(r.cfg.Header, r.set.TelemetrySettings)
	if err != nil {
		return err
	}
	tracker, err := filetrack.New(filetrack.Options{
		Include:            r.cfg.Include,
		Exclude:            r.cfg.Exclude,
		ExcludeOlderThan:   r.cfg.ExcludeOlderThan,
		StartAtBeginning:   r.cfg.StartAt == StartAtBeginning,
		FingerprintSize:    int(r.cfg.FingerprintSize),
		MaxConcurrentFiles: r.cfg.MaxConcurrentFiles,
		Compression:        r.compiled.compression,
		MaxLineSize:        r.cfg.maxLineSize(),
		Newline:            r.compiled.coding.newline,
		Ordering:           r.compiled.ordering,
		DeleteAfterRead:    r.cfg.DeleteAfterRead,
		Watch:              r.cfg.Watch.Enabled,
		FullScanInterval:   r.cfg.Watch.FullScanInterval,
		MaxDeletedBytes:    int64(r.cfg.MaxDeletedBytes),
		Logger:             r.set.Logger,
	})
	if err != nil {
		return err
	}
	r.checkpoints = &checkpoints{tracker: tracker}
	if r.cfg.StorageID != nil {
		client, err := storageext.Client(ctx, host, *r.cfg.StorageID, component.KindReceiver, r.set.ID)
		if err != nil {
			return errors.Join(err, tracker.Close())
		}
		r.checkpoints.store = newCheckpointStore(client, r.set.Logger)
		discarded, err := r.checkpoints.store.load(ctx, r.cfg.OnCorruptCheckpoint, tracker.Restore)
		if err != nil {
			return errors.Join(err, client.Close(ctx), tracker.Close())
		}
		r.tel.checkpointCorrupt(ctx, discarded)
	}
	r.out = newDelivery(r.cfg, r.checkpoints, &r.tel, r.set.Logger)
	inFlight := r.cfg.Batch.MaxInFlight
	if r.cfg.Merge.Enabled {
		r.merge = newMergeStage(r.cfg.Merge, r.out, &r.tel)
		inFlight = 1 // one delivery at a time keeps the merged order downstream
	}
	if r.chain.settlesByTime() {
		inFlight = 1 // entries settled by time ride on a batch after what was emitted before them
	}
	r.out.senders.start(inFlight, r.newSender)
	r.read = r.newReading(tracker, header)
	runCtx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	r.drain = make(chan context.Context, 1)
	r.done = make(chan struct{})
	if err := r.chain.start(); err != nil {
		return err
	}
	go r.run(runCtx)
	return nil
}

// newReading is the reading of the files tracker hands out, with the header's parser (nil
// without a header section).
func (r *mergelogReceiver) newReading(tracker *filetrack.Tracker, header *stanzachain.Header) *reading {
	partials := &partials{max: int(r.cfg.MaxPartialBytes), counts: &r.tel.counts, logger: r.set.Logger}
	files := map[uint64]*tailedFile{}
	return &reading{
		tracker: tracker, files: files, polls: pollClock{interval: r.cfg.PollInterval},
		setup: &fileSetup{
			cfg: r.cfg, compiled: r.compiled, resources: newResources(r.compiled.resource), header: header,
			merge: r.merge, decoder: r.compiled.coding.lineDecoder(), emit: r.emitEntry, logger: r.set.Logger,
		},
		split:    &splitWaits{files: files, wait: r.cfg.SplitLineWait, partials: partials, counts: &r.tel.counts},
		partials: partials, merge: r.merge, out: r.out, checkpoints: r.checkpoints,
		flushAfter: r.cfg.ForceFlushPeriod, truncate: r.compiled.join.Truncate,
	}
}

// Shutdown stops reading, delivers what was built within a bounded time, checkpoints what was
// accepted and closes the files. An entry still incomplete (a partial line, a multiline entry
// waiting for more lines) is not emitted: it is read again from the checkpoint after a restart.
func (r *mergelogReceiver) Shutdown(ctx context.Context) error {
	r.shutdown.Do(func() {
		if r.cancel == nil {
			return // never started
		}
		dctx, cancel := context.WithTimeout(ctx, drainTimeout)
		defer cancel()
		// Deliveries under way go on until the drain's deadline, not beyond.
		stop := context.AfterFunc(dctx, r.out.senders.cancel)
		defer stop()
		r.drain <- dctx
		r.cancel()
		<-r.done
	})
	return nil
}

// run is the receiver's goroutine, one select: a delivery landed, the operators emitted
// entries, the next step is due, or Shutdown asks for the drain. After each, step does what is
// due and says when to look again.
func (r *mergelogReceiver) run(ctx context.Context) {
	defer close(r.done)
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case dctx := <-r.drain:
			r.finish(dctx)
			return
		case f := <-r.out.senders.landed:
			r.out.land(ctx, f)
		case <-r.chain.woken():
		case <-timer.C:
		}
		if !r.out.stopped {
			timer.Reset(max(r.step(ctx), 0))
		}
	}
}

// step polls, reads a round, runs the operators' turn, flushes idle files, releases merged
// entries, sends a due batch and commits what settled on its own; it returns how long to wait
// before the next step. While a full batch is parked (every sender busy) it only polls, until a
// delivery lands.
func (r *mergelogReceiver) step(ctx context.Context) (wait time.Duration) {
	now := time.Now()
	// The merge window's clock does not run while the batch is parked: a stall downstream is not
	// waiting for the inputs.
	if parked := r.out.unpark(); r.merge != nil {
		r.merge.paused += parked
	}
	if r.out.parked {
		r.read.pollIfDue(ctx, now)
		r.flushTelemetry()
		return time.Until(r.read.polls.next)
	}
	if r.merge != nil {
		r.merge.roundClock = r.merge.clock()
	}
	r.read.pollIfDue(ctx, now)
	more := r.read.round(ctx)
	r.chainRound(time.Now())
	due := r.read.flushIdle(ctx, time.Now())
	unblocked := false
	if r.merge != nil {
		due = earliest(due, r.merge.release())
		unblocked = r.read.unblock()
	}
	due = earliest(due, r.out.sendIfDue(time.Now()))
	if len(r.checkpoints.touched) > 0 {
		r.checkpoints.commit(ctx) // entries settled without a delivery (empty ones)
	}
	r.flushTelemetry()
	if more || unblocked {
		return 0
	}
	return time.Until(earliest(due, r.read.polls.next))
}

// finish delivers what was built, checkpoints and closes everything (at Shutdown).
func (r *mergelogReceiver) finish(ctx context.Context) {
	r.stopChain()
	if err := r.read.setup.header.Stop(); err != nil {
		r.set.Logger.Warn("Stopping the header's operators failed", zap.Error(err))
	}
	r.out.startDrain()
	if r.merge != nil {
		r.merge.flush()
	}
	r.out.drain(ctx)
	r.out.senders.stop()
	r.checkpoints.commit(ctx)
	r.flushTelemetry()
	if err := r.read.tracker.Close(); err != nil {
		r.set.Logger.Warn("Closing the files failed", zap.Error(err))
	}
	r.checkpoints.store.close(ctx)
}

// warnIgnoredRetryKeys says, once at start, what file_log's retry keys do here: nothing, since
// giving up on a batch would lose it.
func (r *mergelogReceiver) warnIgnoredRetryKeys() {
	rc := r.cfg.RetryOnFailure
	if rc.Enabled != nil && !*rc.Enabled {
		r.set.Logger.Warn("retry_on_failure.enabled: false is ignored: this receiver always retries a refused batch, so that nothing is lost; offsets advance only once a batch is accepted")
	}
	if rc.MaxElapsedTime > 0 {
		r.set.Logger.Warn("retry_on_failure.max_elapsed_time is ignored: this receiver never gives up on a batch (file_log drops it after that time); it holds the file back instead",
			zap.Duration("max_elapsed_time", rc.MaxElapsedTime))
	}
}

// warnMaxBytes says, once at start, that batches above gRPC's default receive limit are
// refused by a gateway that keeps it (they are then sent again in halves, which costs calls).
func (r *mergelogReceiver) warnMaxBytes() {
	if r.cfg.Batch.MaxBytes > grpcDefaultMaxRecv {
		r.set.Logger.Warn("batch.max_bytes is above the 4 MiB a gRPC receiver accepts by default: unless the next hop's limit (e.g. the otlp receiver's max_recv_msg_size_mib) is raised to match, batches are refused for size and sent again in halves",
			zap.Int64("max_bytes", int64(r.cfg.Batch.MaxBytes)))
	}
}

func (r *mergelogReceiver) flushTelemetry() {
	if r.merge != nil {
		r.tel.flush(r.read.tracker, r.merge.window)
		return
	}
	r.tel.flush(r.read.tracker, nil)
}
