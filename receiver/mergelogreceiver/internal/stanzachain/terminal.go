package stanzachain

import (
	"context"
	"sync"

	"go.opentelemetry.io/collector/component"

	stanza "github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/entry"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/operator/helper"
)

// terminalID names the output operator at the end of a chain.
const terminalID = "mergelog_receiver_output"

// terminal is a chain's output operator: it queues what comes out, from whichever goroutine
// emits it, for the goroutine that runs the chain.
type terminal struct {
	helper.OutputOperator
	mu    sync.Mutex
	queue []*stanza.Entry
	wake  chan struct{}
}

func newTerminal(set component.TelemetrySettings) (*terminal, error) {
	op, err := helper.NewOutputConfig(terminalID, terminalID).Build(set)
	if err != nil {
		return nil, err
	}
	return &terminal{OutputOperator: op, wake: make(chan struct{}, 1)}, nil
}

func (t *terminal) Process(_ context.Context, e *stanza.Entry) error {
	t.mu.Lock()
	t.queue = append(t.queue, e)
	t.mu.Unlock()
	t.signal()
	return nil
}

func (t *terminal) ProcessBatch(_ context.Context, es []*stanza.Entry) error {
	t.mu.Lock()
	t.queue = append(t.queue, es...)
	t.mu.Unlock()
	t.signal()
	return nil
}

func (t *terminal) signal() {
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

// take swaps the queue with buf (emptied) and returns what was queued.
func (t *terminal) take(buf []*stanza.Entry) []*stanza.Entry {
	t.mu.Lock()
	q := t.queue
	t.queue = buf
	t.mu.Unlock()
	return q
}
