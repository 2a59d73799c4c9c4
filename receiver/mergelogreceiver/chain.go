package mergelogreceiver

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	stanza "github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/entry"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/operator"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/operator/helper"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/pipeline"

	"github.com/mergelog/otelcol-mergelog/internal/ledger"
)

// chain is file_log's operators as stanza builds and runs them, between the entries the
// receiver reads and its batches, and the books that tie what comes out of it to the files'
// ledgers.
//
// Parsers, transformers, router and filter call the next operator before Process returns: an
// entry that went in has then come out (once, or more than once through a fan-out) or was
// dropped, and it settles as such. Holding operators (recombine, stanza's container operator)
// emit later, from their own goroutines, and recombine emits only the first entry of a group,
// the others merged into it. Their entries are followed by identity (the *entry.Entry pointer,
// which operators pass on): when an entry comes out, every entry its file sent in before it
// has come out, been dropped, or been merged into an entry before it, which holds the file's
// commit until it is delivered; so they settle. That needs each recombine group to hold one
// file's entries (fileSourced); otherwise, and for what a file sent in after its last output,
// an entry settles once it has been in the chain for holdBound, which every holding operator
// flushes within, riding on the batch being built so that it settles after what was emitted
// before it (one batch in flight keeps that order).
//
// A fan-out (fansOut) makes outputs that carry no identity of their input: stanza's writers
// copy the entry for each output but the last, and a copy is a new pointer. In a holding chain
// a copy may come out after the entry itself, or be held while the entry itself comes out at
// once, so no output tells that its input has left the chain: every output then rides
// unmarked and every input settles by holdBound, by which time each of its outputs came out
// and is in the batch being built or in one before it.
type chain struct {
	pipe     *pipeline.DirectedPipeline
	first    operator.Operator
	out      *terminal
	failures *atomic.Int64 // entries an operator failed on (its on_error handled them)
	fast     *fastChain    // the operators run on the record itself (fastops.go), without stanza

	holding  bool          // some operator emits after Process returned
	bound    time.Duration // holdBound
	bySource bool          // fileSourced: an output settles what its file sent in before it
	fanOut   bool          // fansOut: an entry may come out more than once

	// Run goroutine only.
	inputs  map[*tailedFile]*heldInputs // holding: what each file sent in that may still be inside
	byEntry map[*stanza.Entry]*chainInput
	taken   []*stanza.Entry
	last    *tailedFile // the file of the latest input, for entries copied by a fan-out
}

// chainInput is one entry inside a holding chain.
type chainInput struct {
	s       *stream
	seq     ledger.Seq
	entered int64 // Unix nanoseconds
	e       *stanza.Entry
	out     bool
}

// heldInputs are one file's entries that went into a holding chain and may still be inside, in
// the order they went in.
type heldInputs struct {
	q    []*chainInput
	head int
}

func (h *heldInputs) front() *chainInput {
	if h.head == len(h.q) {
		return nil
	}
	return h.q[h.head]
}

func (h *heldInputs) pop() {
	h.q[h.head] = nil
	h.head++
	if h.head == len(h.q) || h.head > 1024 && h.head > len(h.q)/2 {
		h.q = append(h.q[:0], h.q[h.head:]...)
		h.head = 0
	}
}

// newChain builds the operators stanza runs, ending in the receiver's terminal; nil without any.
func newChain(cfg *Config, set component.TelemetrySettings) (*chain, error) {
	ops := cfg.chainOperators()
	if len(ops) == 0 {
		return nil, nil
	}
	failures := &atomic.Int64{}
	if fast := newFastChain(ops, cfg.Encoding == EncodingNop, set.Logger); fast != nil {
		return &chain{fast: fast, failures: failures}, nil
	}
	set.Logger = zap.New(&failureCounter{Core: set.Logger.Core(), failures: failures})
	out, err := newTerminal(set)
	if err != nil {
		return nil, err
	}
	pipe, err := pipeline.Config{Operators: ops, DefaultOutput: out}.Build(set)
	if err != nil {
		return nil, err
	}
	c := &chain{
		pipe: pipe, out: out, failures: failures,
		bound: holdBound(ops), bySource: cfg.fileSourced(ops),
		inputs: map[*tailedFile]*heldInputs{}, byEntry: map[*stanza.Entry]*chainInput{},
	}
	c.holding = c.bound > 0
	c.fanOut = fansOut(ops, pipe.Operators())
	for _, op := range pipe.Operators() {
		if op.ID() == ops[0].ID() {
			c.first = op
		}
	}
	return c, nil
}

// start starts stanza's operators; a fast chain has nothing to start.
func (c *chain) start() error {
	if c == nil || c.fast != nil {
		return nil
	}
	return c.pipe.Start(nil)
}

// settlesByTime reports whether entries settle only once holdBound has passed: holding
// operators whose groups may mix files, or that a fan-out feeds or follows.
func (c *chain) settlesByTime() bool {
	return c != nil && c.holding && (!c.bySource || c.fanOut)
}

// woken is signalled when entries came out of the chain; nil (never) without a chain.
func (c *chain) woken() <-chan struct{} {
	if c == nil || c.fast != nil {
		return nil
	}
	return c.out.wake
}

// toChain builds the stanza entry file_log's file input would build for e and runs the chain
// on it; what comes out goes on to the merge or the batch.
func (r *mergelogReceiver) toChain(e *entry) {
	c := r.chain
	if c.fast != nil {
		r.toFastChain(e)
		return
	}
	se := r.stanzaEntry(e)
	f := e.s.f
	c.last = f
	if c.holding {
		in := &chainInput{s: e.s, seq: e.seq, entered: e.observed, e: se}
		h := c.inputs[f]
		if h == nil {
			h = &heldInputs{}
			c.inputs[f] = h
		}
		h.q = append(h.q, in)
		c.byEntry[se] = in
	}
	// An operator that fails on the entry has logged it and applied its on_error (counted by
	// failureCounter); Process's error says nothing more.
	_ = c.first.Process(r.ctx, se)
	if c.holding {
		r.collect()
		return
	}
	outs := c.out.take(c.taken[:0])
	for i, o := range outs {
		oe := r.output(o, e.s)
		if i == 0 {
			oe.seq = e.seq
		} else {
			// One entry in, several out (a fan-out): each is a ledger entry of its own,
			// added while it is still the stream's last.
			oe.seq = e.s.books.Entries.Add(e.start, e.record)
		}
		r.emitOutput(&oe)
	}
	if len(outs) == 0 {
		r.out.settle(e.s, e.seq) // dropped (filter, on_error: drop) or written elsewhere
	}
	clear(outs)
	c.taken = outs
}

// collect takes what came out of a holding chain (from Process, or from the operators'
// goroutines) and settles what the files sent in before it.
func (r *mergelogReceiver) collect() {
	c := r.chain
	outs := c.out.take(c.taken[:0])
	for _, o := range outs {
		in := c.byEntry[o]
		if in == nil || c.fanOut {
			// A copy made by a fan-out, or an entry that may have copies still inside: it
			// rides unmarked, and its input settles by time (see chain).
			s := c.last.streams[0]
			if in != nil {
				s = in.s
			}
			oe := r.output(o, s)
			oe.unmarked = true
			r.emitOutput(&oe)
			continue
		}
		delete(c.byEntry, o)
		in.out = true
		oe := r.output(o, in.s)
		oe.seq = in.seq
		r.emitOutput(&oe)
		if c.bySource {
			r.settleBefore(in)
		}
	}
	clear(outs)
	c.taken = outs
}

// settleBefore settles the entries in's file sent in before it that did not come out: dropped,
// or merged into an entry before them, which holds the file's commit until it is delivered.
func (r *mergelogReceiver) settleBefore(in *chainInput) {
	h := r.chain.inputs[in.s.f]
	for h != nil {
		p := h.front()
		if p == nil {
			break
		}
		r.leave(h, p)
		if p == in {
			break
		}
	}
	r.chain.forget(in.s.f, h)
}

// leave pops p, the front of h, settling it if it did not come out.
func (r *mergelogReceiver) leave(h *heldInputs, p *chainInput) {
	h.pop()
	if p.out {
		return
	}
	delete(r.chain.byEntry, p.e)
	if !r.chain.settlesByTime() {
		r.out.settle(p.s, p.seq)
		return
	}
	// It may have been merged into an entry of another file emitted before now, or its
	// outputs are in the batch being built: it settles with that batch, or a later one.
	r.out.batch.marks = append(r.out.batch.marks, mark{p.s, p.seq})
}

func (c *chain) forget(f *tailedFile, h *heldInputs) {
	if h != nil && h.front() == nil {
		delete(c.inputs, f)
	}
}

// expire settles the entries that have been in a holding chain for longer than any operator
// holds one: they were dropped or merged into an entry emitted meanwhile.
func (r *mergelogReceiver) expire(now int64) {
	c := r.chain
	for f, h := range c.inputs {
		for p := h.front(); p != nil && (p.out || now-p.entered > c.bound.Nanoseconds()); p = h.front() {
			r.leave(h, p)
		}
		c.forget(f, h)
	}
}

// chainRound is the run loop's turn of the chain: what came out from the operators'
// goroutines, entries that expired, the failures to count.
func (r *mergelogReceiver) chainRound(now time.Time) {
	c := r.chain
	if c == nil {
		return
	}
	if c.holding {
		r.collect()
		r.expire(now.UnixNano())
	}
	if c.fast != nil {
		c.failures.Add(c.fast.failed)
		c.fast.failed = 0
	}
	if n := c.failures.Swap(0); n > 0 {
		r.tel.builder.ReceiverMergelogOperatorErrors.Add(context.Background(), n, r.tel.self)
	}
}

// stopChain, at Shutdown, stops the operators, which emit what they hold; then nothing is
// inside, and what did not come out was dropped or merged.
func (r *mergelogReceiver) stopChain() {
	c := r.chain
	if c == nil || c.fast != nil {
		return
	}
	if err := c.pipe.Stop(); err != nil {
		r.set.Logger.Warn("Stopping the operators failed", zap.Error(err))
	}
	if !c.holding {
		return
	}
	r.collect()
	r.expire(time.Now().Add(c.bound).UnixNano() + 1)
}

// terminal is the chain's output operator: it queues what comes out, from whichever goroutine
// emits it, for the run goroutine, which owns the receiver's state.
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

// failedEntryMessage is what stanza's operators log, at error or (quiet on_error) debug level,
// for each entry they fail on.
const failedEntryMessage = "Failed to process entry"

// failureCounter counts the entries operators fail on from their logs, the one place every
// on_error path reports to; it lets debug entries through to Check so that quiet ones count
// too, and passes on only what the receiver's own logger would write.
type failureCounter struct {
	zapcore.Core
	failures *atomic.Int64
}

func (c *failureCounter) Enabled(zapcore.Level) bool { return true }

func (c *failureCounter) With(fields []zapcore.Field) zapcore.Core {
	return &failureCounter{Core: c.Core.With(fields), failures: c.failures}
}

func (c *failureCounter) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if e.Message == failedEntryMessage {
		c.failures.Add(1)
	}
	if !c.Core.Enabled(e.Level) {
		return ce
	}
	return c.Core.Check(e, ce)
}
