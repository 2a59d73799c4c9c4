package mergelogprocessor // import "github.com/mergelog/otelcol-mergelog/processor/mergelogprocessor"

import (
	"context"
	"sync"
)

// outQueue holds the released batches, in release order, until the next consumer accepted
// them. Its lock nests inside the processor's (releases push under both); delivery takes only
// this one.
type outQueue struct {
	mu      sync.Mutex
	batches []*outBatch
	held    int           // records in batches
	space   chan struct{} // closed, and replaced, whenever records leave
	ready   chan struct{} // a batch may be waiting (capacity 1: one signal covers many)
}

func (q *outQueue) init() {
	q.space = make(chan struct{})
	q.ready = make(chan struct{}, 1)
}

func (q *outQueue) push(b *outBatch) {
	q.mu.Lock()
	q.batches = append(q.batches, b)
	q.held += b.records
	q.mu.Unlock()
}

// wake tells the delivery goroutine that batches may be waiting.
func (q *outQueue) wake() {
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

// head is the oldest batch not yet accepted, nil if none.
func (q *outQueue) head() *outBatch {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.batches) == 0 {
		return nil
	}
	return q.batches[0]
}

// pop drops the head, accepted (or refused for good) by the next consumer.
func (q *outQueue) pop() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.held -= q.batches[0].records
	q.batches[0] = nil
	q.batches = q.batches[1:]
	close(q.space)
	q.space = make(chan struct{})
}

// records is the number of records released and not yet accepted.
func (q *outQueue) records() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.held
}

// waitForSpace returns once fewer than limit released records wait for the next consumer:
// the only wait in ConsumeLogs, which so follows the next consumer's pace but never waits for
// records to be released. It gives up when ctx ends or stop is closed.
func (q *outQueue) waitForSpace(ctx context.Context, limit int, stop <-chan struct{}) error {
	for {
		q.mu.Lock()
		held, space := q.held, q.space
		q.mu.Unlock()
		if held < limit {
			return nil
		}
		select {
		case <-space:
		case <-ctx.Done():
			return ctx.Err()
		case <-stop:
			return errStopping
		}
	}
}
