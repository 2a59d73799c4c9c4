package mergelogprocessor // import "github.com/mergelog/otelcol-mergelog/processor/mergelogprocessor"

import (
	"context"
	"time"

	"github.com/mergelog/otelcol-mergelog/internal/refusal"
)

// The waits between attempts at a batch the next consumer refused with a retryable error, or
// held under on_refusal: doubling from the first to the last. The batch stays at the head of
// the queue meanwhile, so nothing after it overtakes it.
const (
	retryFirstWait = 100 * time.Millisecond
	retryLastWait  = 5 * time.Second
)

// newSender makes the delivery goroutine's refusal sender: each refusal is handled as
// on_refusal says.
func (p *mergelogProcessor) newSender() *refusal.Sender {
	return &refusal.Sender{
		Policy:   &p.cfg.OnRefusal,
		Backoff:  refusal.Backoff{Initial: retryFirstWait, Max: retryLastWait},
		Consume:  p.next.ConsumeLogs,
		Observer: p.tel,
		Logger:   p.logger,
	}
}

// deliver sends the queued batches to the next consumer, one at a time and in order, until
// the queue is empty or ctx ends. Each batch goes until every record of it is accepted, or
// dropped for a refusal as on_refusal says (counted, and logged with the file and record its
// attributes name); its stored records are then removed from storage.
func (p *mergelogProcessor) deliver(ctx context.Context) {
	for {
		b := p.queue.head()
		if b == nil {
			return
		}
		if err := p.sender.Deliver(ctx, b.ld, false, nil); err != nil {
			return // ctx ended: the batch stays at the head
		}
		if p.store != nil {
			p.store.settle(ctx, b.stored)
		}
		p.queue.pop() // after settle: an empty queue means storage holds only what is held
	}
}
