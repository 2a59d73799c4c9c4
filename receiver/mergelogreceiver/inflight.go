package mergelogreceiver

import (
	"context"
	"sync"

	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/receiver/receiverhelper"
	"go.uber.org/zap"

	"github.com/mergelog/otelcol-mergelog/internal/refusal"
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
	waiting  []*flight    // at Shutdown: sealed while every sender was busy, sent in order
	free     []*batch     // batches not in use
	wg       sync.WaitGroup
	// ctx is the deliveries' context. Shutdown does not end it: deliveries under way go on
	// until the drain's deadline (cancel then), so that a batch the next consumer is
	// accepting as the stop comes is not cut off and sent again.
	ctx    context.Context
	cancel context.CancelFunc
}

// start starts n sender goroutines, each with a refusal sender of its own from newSender.
func (s *senders) start(n int, newSender func() *refusal.Sender) {
	s.max = n
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.queue = make(chan *flight, n)
	s.landed = make(chan *flight, n)
	for range n {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			sender := newSender()
			for f := range s.queue {
				// Until each record is accepted, or dropped for a refusal as on_refusal says
				// (either way it settles: a dropped record is counted and logged with its
				// file and offset); ctx's error if the drain's deadline ends it first.
				f.err = sender.Deliver(f.ctx, f.logs, f.overLimit, f.b.origins.name)
				s.landed <- f
			}
		}()
	}
}

// stop ends the sender goroutines once nothing is in flight.
func (s *senders) stop() {
	close(s.queue)
	s.wg.Wait()
	s.cancel()
}

// busy reports whether max batches are in flight.
func (s *senders) busy() bool { return s.inFlight >= s.max }

// dispatch hands f to a sender, or keeps it until one is free (at Shutdown only: running, a
// full batch parks instead).
func (s *senders) dispatch(f *flight) {
	if s.busy() {
		s.waiting = append(s.waiting, f)
		return
	}
	s.inFlight++
	s.queue <- f
}

// land takes f back: its batch is free again, and its slot goes to the first batch waiting
// unless nothing more is to be sent.
func (s *senders) land(f *flight, sendMore bool) {
	s.inFlight--
	f.b.reset()
	s.free = append(s.free, f.b)
	if !sendMore {
		clear(s.waiting) // not accepted, so not checkpointed: read again after a restart
		s.waiting = s.waiting[:0]
		return
	}
	if len(s.waiting) > 0 {
		next := s.waiting[0]
		s.waiting = s.waiting[1:]
		s.dispatch(next)
	}
}

// takeBatch returns an empty batch, reusing one that landed; newBatch makes one otherwise.
func (s *senders) takeBatch(newBatch func() *batch) *batch {
	if n := len(s.free); n > 0 {
		b := s.free[n-1]
		s.free = s.free[:n-1]
		return b
	}
	return newBatch()
}

// newRefusalSender returns the maker of the refusal sender of one sender goroutine: each call
// goes through the receiver's obsreport, and each refusal is handled as on_refusal says.
func newRefusalSender(cfg *Config, next consumer.Logs, obsrecv *receiverhelper.ObsReport, tel *receiverTelemetry, logger *zap.Logger) func() *refusal.Sender {
	policy := cfg.OnRefusal
	return func() *refusal.Sender {
		return &refusal.Sender{
			Policy:  &policy,
			Backoff: refusal.Backoff{Initial: cfg.RetryOnFailure.InitialInterval, Max: cfg.RetryOnFailure.MaxInterval},
			Consume: func(ctx context.Context, ld plog.Logs) error {
				octx := obsrecv.StartLogsOp(ctx)
				err := next.ConsumeLogs(octx, ld)
				obsrecv.EndLogsOp(octx, "text", ld.LogRecordCount(), err)
				return err
			},
			Observer: tel,
			Logger:   logger,
		}
	}
}
