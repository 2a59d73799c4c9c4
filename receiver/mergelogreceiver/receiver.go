package mergelogreceiver

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/extension/xextension/storage"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/receiverhelper"
	"go.uber.org/zap"

	"github.com/mergelog/otelcol-mergelog/internal/filetrack"
	"github.com/mergelog/otelcol-mergelog/internal/merge"
	"github.com/mergelog/otelcol-mergelog/receiver/mergelogreceiver/internal/metadata"
)

// checkpointKey is the one storage key holding the tracker's checkpoint: a single Set is one
// transaction in file_storage, so a crash leaves the previous checkpoint or the new one.
const checkpointKey = "checkpoint"

// drainTimeout bounds how long Shutdown tries to deliver what was built; what is not accepted by
// then is not checkpointed, so it is read again after a restart.
const drainTimeout = 5 * time.Second

type mergelogReceiver struct {
	cfg         *Config
	set         receiver.Settings
	logger      *zap.Logger
	next        consumer.Logs
	obsrecv     *receiverhelper.ObsReport
	tel         *metadata.TelemetryBuilder
	metricAttrs metricAttrs
	rules       entryRules

	// Owned by the run goroutine between Start and the end of Shutdown.
	tracker     *filetrack.Tracker
	storage     storage.Client
	files       map[uint64]*fileState
	order       []*fileState // files in reading order (round robin)
	cursor      int          // the file of r.order the read round is at
	batch       *batch
	resources   resources
	touched     []*fileState          // files with entries settled since the last commit
	unsaved     bool                  // offsets committed since the checkpoint was last written
	window      *merge.Window[uint32] // slots of held
	held        slab
	rounds      []int64       // window clock of the read rounds whose entries may still be held
	roundClock  int64         // window clock of the current round: the arrival time of its entries
	pushed      bool          // the current round pushed entries into the window
	paused      time.Duration // time spent delivering: the merge window's clock stands still then
	observed    int64         // ObservedTimestamp of the entries being read
	ctx         context.Context
	stopping    bool // a delivery was interrupted by Shutdown: read and send nothing more
	nextPoll    time.Time
	pollOverdue bool // reading stops until the next poll
	counts      counts
	lateSeen    int64 // window.Late() at the last record
	bytesSeen   int64 // the tracker's BytesRead at the last record
	longestHold int64 // of the entries released since the last recordHold; -1 when none

	cancel   context.CancelFunc
	drain    chan context.Context
	done     chan struct{}
	shutdown sync.Once
}

func newReceiver(set receiver.Settings, cfg *Config, next consumer.Logs) (*mergelogReceiver, error) {
	rules, err := newEntryRules(cfg)
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
	tel, err := metadata.NewTelemetryBuilder(set.TelemetrySettings)
	if err != nil {
		return nil, err
	}
	return &mergelogReceiver{
		cfg: cfg, set: set, logger: set.Logger, next: next, obsrecv: obsrecv, tel: tel, rules: rules,
		metricAttrs: newMetricAttrs(set.ID.String()),
	}, nil
}

// Start opens the checkpoint, if storage is configured, and starts the one goroutine that polls,
// reads and delivers.
func (r *mergelogReceiver) Start(ctx context.Context, host component.Host) error {
	compression, _ := r.cfg.compression() // validated
	tracker, err := filetrack.New(filetrack.Options{
		Include:            r.cfg.Include,
		Exclude:            r.cfg.Exclude,
		ExcludeOlderThan:   r.cfg.ExcludeOlderThan,
		StartAtBeginning:   r.cfg.StartAt == startBeginning,
		FingerprintSize:    int(r.cfg.FingerprintSize),
		MaxConcurrentFiles: r.cfg.MaxConcurrentFiles,
		Compression:        compression,
		MaxLineSize:        r.cfg.maxLineSize(),
		DeleteAfterRead:    r.cfg.DeleteAfterRead,
		Logger:             r.logger,
	})
	if err != nil {
		return err
	}
	if r.cfg.StorageID != nil {
		client, err := storageClient(ctx, host, *r.cfg.StorageID, r.set.ID)
		if err != nil {
			tracker.Close()
			return err
		}
		if err := restore(ctx, client, tracker); err != nil {
			tracker.Close()
			return errors.Join(err, client.Close(ctx))
		}
		r.storage = client
	}
	r.tracker = tracker
	r.files = map[uint64]*fileState{}
	r.batch = newBatch(r.cfg.Batch.MaxRecords)
	r.resources = newResources(r.rules.resource)
	if r.cfg.Merge.Enabled {
		r.window = merge.NewWindow[uint32](r.cfg.Merge.Window.Nanoseconds())
		r.longestHold = -1
	}
	runCtx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	r.drain = make(chan context.Context, 1)
	r.done = make(chan struct{})
	go r.run(runCtx)
	return nil
}

func storageClient(ctx context.Context, host component.Host, id, self component.ID) (storage.Client, error) {
	ext, ok := host.GetExtensions()[id]
	if !ok {
		return nil, fmt.Errorf("storage: extension %q not found", id)
	}
	se, ok := ext.(storage.Extension)
	if !ok {
		return nil, fmt.Errorf("storage: extension %q is not a storage extension", id)
	}
	client, err := se.GetClient(ctx, component.KindReceiver, self, "")
	if err != nil {
		return nil, fmt.Errorf("storage: extension %q: %w", id, err)
	}
	return client, nil
}

func restore(ctx context.Context, client storage.Client, tracker *filetrack.Tracker) error {
	data, err := client.Get(ctx, checkpointKey)
	if err != nil {
		return fmt.Errorf("storage: reading the checkpoint: %w", err)
	}
	if len(data) == 0 {
		return nil
	}
	if err := tracker.Restore(data); err != nil {
		return fmt.Errorf("storage: restoring the checkpoint (key %q): %w", checkpointKey, err)
	}
	return nil
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
		r.drain <- dctx
		r.cancel()
		<-r.done
	})
	return nil
}

// run is the receiver's goroutine: poll, read a round, flush idle files, release merged
// entries, send due batches; then sleep until the next of those is due.
func (r *mergelogReceiver) run(ctx context.Context) {
	defer close(r.done)
	r.ctx = ctx
	timer := time.NewTimer(0)
	defer timer.Stop()
	for ctx.Err() == nil && !r.stopping {
		now := time.Now()
		r.roundClock = r.clock()
		if !now.Before(r.nextPoll) {
			r.poll(now)
		}
		more := r.readRound()
		due := r.flushIdle(time.Now())
		releaseDue, unblocked := r.release()
		due = earliest(due, releaseDue)
		if r.batch.len() > 0 {
			sendAt := r.batch.opened.Add(r.cfg.Batch.Timeout)
			if !time.Now().Before(sendAt) {
				r.send()
			} else {
				due = earliest(due, sendAt)
			}
		}
		if len(r.touched) > 0 {
			r.commit() // entries settled without a delivery (empty ones)
		}
		r.record()
		wait := time.Until(earliest(due, r.nextPoll))
		if more || unblocked {
			wait = 0
		}
		timer.Reset(max(wait, 0))
		select {
		case <-ctx.Done():
		case <-timer.C:
		}
	}
	r.finish(<-r.drain)
}

// earliest returns the earlier of two deadlines, where the zero time means none.
func earliest(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}

// finish delivers what was built, checkpoints and closes everything (at Shutdown).
func (r *mergelogReceiver) finish(ctx context.Context) {
	r.ctx, r.stopping = ctx, false
	if r.window != nil {
		r.window.Flush(r.clock(), r.emitHeld)
		r.recordHold()
	}
	r.send()
	r.commit()
	r.record()
	r.tracker.Close()
	if r.storage != nil {
		if err := r.storage.Close(ctx); err != nil {
			r.logger.Warn("Closing the storage client failed", zap.Error(err))
		}
	}
}

// clock is the merge window's clock in Unix nanoseconds: wall time minus the time spent
// delivering, so that a stall downstream does not count as waiting for the inputs and does not
// release entries out of order.
func (r *mergelogReceiver) clock() int64 {
	return time.Now().Add(-r.paused).UnixNano()
}
