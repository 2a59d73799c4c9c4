package mergelogprocessor // import "github.com/mergelog/otelcol-mergelog/processor/mergelogprocessor"

import (
	"context"
	"time"

	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.uber.org/zap"
)

// The waits between attempts at a batch the next consumer refused with a retryable error:
// doubling from the first to the last. The batch stays at the head of the queue meanwhile, so
// nothing after it overtakes it.
const (
	retryFirstWait = 100 * time.Millisecond
	retryLastWait  = 5 * time.Second
)

// deliver sends the queued batches to the next consumer, one at a time and in order, until
// the queue is empty or stop is closed. A batch is retried until accepted, unless refused for
// good; either way its stored records are then removed from storage.
func (p *mergelogProcessor) deliver(ctx context.Context, stop <-chan struct{}) {
	wait := retryFirstWait
	for {
		b := p.queue.head()
		if b == nil {
			return
		}
		err := p.next.ConsumeLogs(ctx, b.ld)
		switch {
		case err == nil:
		case consumererror.IsPermanent(err):
			p.tel.dropped(b.records)
			p.logger.Error("The next consumer refused records for good; they are dropped",
				zap.Int("records", b.records), zap.Error(err))
		default:
			p.tel.retry()
			p.logger.Debug("The next consumer refused records; trying again",
				zap.Int("records", b.records), zap.Duration("after", wait), zap.Error(err))
			timer := time.NewTimer(wait)
			select {
			case <-stop:
				timer.Stop()
				return
			case <-timer.C:
			}
			wait = min(2*wait, retryLastWait)
			continue
		}
		wait = retryFirstWait
		if p.store != nil {
			p.store.settle(ctx, b.stored)
		}
		p.queue.pop() // after settle: an empty queue means storage holds only what is held

	}
}
