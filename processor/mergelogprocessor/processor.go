package mergelogprocessor // import "github.com/mergelog/otelcol-mergelog/processor/mergelogprocessor"

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/processor"
	"go.opentelemetry.io/collector/processor/processorhelper"
	"go.uber.org/zap"

	"github.com/mergelog/otelcol-mergelog/internal/refusal"
	"github.com/mergelog/otelcol-mergelog/internal/storageext"
)

// mergelogProcessor takes records into the groups of their merge keys in ConsumeLogs, which returns as
// soon as they are held (and stored); releases move what is due into an ordered queue of
// output batches, and one goroutine (run) delivers that queue to the next consumer in order and
// ticks the release timer.
//
// Locks: mu guards the groups and the queue; it is never held while calling the next
// consumer or the storage extension, so ConsumeLogs never waits for either's work on others'
// records.
type mergelogProcessor struct {
	cfg    *Config
	next   consumer.Logs
	logger *zap.Logger
	tel    *telemetry
	self   component.ID
	// now is the processor's clock: arrivals, max_delay and idle_timeout are measured on it.
	now func() time.Time
	// ticks drives the release timer; nil makes start use a ticker every release_interval.
	// Tests drive both.
	ticks <-chan time.Time

	mu     sync.Mutex
	groups map[string]*group
	queue  outQueue
	keyBuf []byte // scratch for merge keys, under mu

	store  *batchStore     // nil without storage
	sender *refusal.Sender // of the goroutine that delivers (run, then shutdown)

	stop    chan struct{} // closed at shutdown
	done    chan struct{} // closed when run returns
	started bool
}

func newMergelogProcessor(set processor.Settings, cfg *Config, next consumer.Logs) (*mergelogProcessor, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	tel, err := newTelemetry(set.TelemetrySettings)
	if err != nil {
		return nil, err
	}
	p := &mergelogProcessor{
		cfg: cfg, next: next, logger: set.Logger, tel: tel, self: set.ID, now: time.Now,
		groups: map[string]*group{},
		stop:   make(chan struct{}),
		done:   make(chan struct{}),
	}
	p.queue.init()
	p.sender = p.newSender()
	return p, nil
}

// asProcessor wraps p in the processor helper, which counts what comes in and runs start and
// shutdown.
func (p *mergelogProcessor) asProcessor(set processor.Settings) (processor.Logs, error) {
	return processorhelper.NewLogs(context.Background(), set, p.cfg, p.next, p.consume,
		// Records are moved out of the batches they came in and kept after ConsumeLogs returns.
		processorhelper.WithCapabilities(consumer.Capabilities{MutatesData: true}),
		processorhelper.WithStart(p.start),
		processorhelper.WithShutdown(p.shutdown))
}

func (p *mergelogProcessor) start(ctx context.Context, host component.Host) error {
	if p.cfg.StorageID != nil {
		client, err := storageext.Client(ctx, host, *p.cfg.StorageID, component.KindProcessor, p.self)
		if err != nil {
			return err
		}
		p.store = newBatchStore(client, p.logger)
	}
	ticks, stopTicker := p.ticks, func() {}
	if ticks == nil {
		ticker := time.NewTicker(p.cfg.ReleaseInterval)
		ticks, stopTicker = ticker.C, ticker.Stop
	}
	// Delivery runs before the replay, which so waits for space as ConsumeLogs does: a large
	// backlog in storage is replayed at the next consumer's pace, not into memory at once.
	go p.run(ticks, stopTicker)
	p.started = true
	if p.store != nil {
		if err := p.replay(ctx); err != nil {
			close(p.stop)
			<-p.done
			p.started = false
			return errors.Join(err, p.store.close(ctx))
		}
	}
	return nil
}

// replay takes back, oldest first, the records the last run stored and did not see accepted,
// as arrivals now, one batch at a time.
func (p *mergelogProcessor) replay(ctx context.Context) error {
	from, to, err := p.store.restore(ctx)
	if err != nil {
		return err
	}
	records, batches := 0, 0
	for seq := from; seq < to; seq++ {
		ld, ok, err := p.store.load(ctx, seq)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		if err := p.queue.waitForSpace(ctx, p.cfg.MaxHeld, p.stop); err != nil {
			return fmt.Errorf("storage: replaying: %w", err)
		}
		records += ld.LogRecordCount()
		batches++
		p.take(ld, seq)
	}
	if records > 0 {
		p.tel.replayed(records)
		p.logger.Info("Replayed the records the last run held or had not delivered",
			zap.Int("records", records), zap.Int("batches", batches))
	}
	return nil
}

// consume is the processor helper's function: the records are held (and stored) when it
// returns, and go on from run, so the helper is told to skip sending them.
func (p *mergelogProcessor) consume(ctx context.Context, ld plog.Logs) (plog.Logs, error) {
	if ld.LogRecordCount() == 0 {
		return ld, processorhelper.ErrSkipProcessingData
	}
	select {
	case <-p.stop: // nothing would deliver them any more
		return ld, errStopping
	default:
	}
	if err := p.queue.waitForSpace(ctx, p.cfg.MaxHeld, p.stop); err != nil {
		return ld, err
	}
	var seq uint64
	if p.store != nil {
		var err error
		if seq, err = p.store.append(ctx, ld); err != nil {
			return ld, err
		}
	}
	p.take(ld, seq)
	return ld, processorhelper.ErrSkipProcessingData
}

// take holds the records of ld (stored as batch seq, 0 if not) and releases what their
// arrival made due: late records, records their watermarks passed, the excess over max_held.
func (p *mergelogProcessor) take(ld plog.Logs, seq uint64) {
	p.mu.Lock()
	now := p.now().UnixNano()
	touched := p.hold(ld, seq, now)
	var out releaser
	out.begin(p, now)
	for _, g := range touched {
		out.release(g)
		out.shed(g, p.cfg.MaxHeld)
	}
	out.end()
	p.mu.Unlock()
	p.queue.wake()
}

// tick is the release timer's work: sources that went idle stop holding the others back,
// records whose max_delay ran out go out, and groups left empty are forgotten.
func (p *mergelogProcessor) tick() {
	p.mu.Lock()
	now := p.now().UnixNano()
	var out releaser
	out.begin(p, now)
	for key, g := range p.groups {
		p.tel.sourcesIdle(g.retireIdle(now, p.cfg.IdleTimeout.Nanoseconds()))
		g.endDiscovery(now)
		out.release(g)
		if g.empty() {
			delete(p.groups, key)
		}
	}
	out.end()
	p.mu.Unlock()
	p.queue.wake()
}

// run ticks the release timer and delivers the queue, until shutdown.
func (p *mergelogProcessor) run(ticks <-chan time.Time, stopTicker func()) {
	defer close(p.done)
	defer stopTicker()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { // a delivery in progress is cut short at shutdown
		select {
		case <-p.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	for {
		select {
		case <-p.stop:
			return
		case <-ticks:
			p.tick()
		case <-p.queue.ready:
		}
		p.deliver(ctx)
	}
}

func (p *mergelogProcessor) shutdown(ctx context.Context) error {
	if !p.started {
		return nil
	}
	close(p.stop)
	<-p.done
	// What is held goes out now, in order: the pipeline after this processor is still running.
	p.mu.Lock()
	var out releaser
	out.begin(p, p.now().UnixNano())
	for _, g := range p.groups {
		out.flush(g)
	}
	out.end()
	p.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, shutdownDeliveryTimeout)
	defer cancel()
	p.deliver(ctx)
	if left := p.queue.records(); left > 0 {
		if p.store != nil {
			p.logger.Warn("Shutdown before every record held was delivered; the rest stay stored and are replayed at the next start",
				zap.Int("records", left))
		} else {
			p.tel.droppedAtShutdown(left)
			p.logger.Error("Shutdown before every record held was delivered; without storage they are lost",
				zap.Int("records", left))
		}
	}
	if p.store != nil {
		return p.store.close(ctx)
	}
	return nil
}

// shutdownDeliveryTimeout bounds how long shutdown tries to deliver what is held: the
// collector shuts down without a deadline, and a backend that is down would otherwise hold
// shutdown forever. With storage what is left is replayed at the next start.
const shutdownDeliveryTimeout = 15 * time.Second

// errStopping refuses records that arrive while the processor shuts down.
var errStopping = errors.New("mergelog processor: shutting down")
