// Package stanzachain runs file_log's operators as stanza builds and runs them, between the
// entries a receiver reads and its batches, and keeps the books that tie what comes out of
// them to what went in, so that the receiver can settle each entry it sent in: once an output
// that carries it is delivered, or once it left the chain without one.
//
// Parsers, transformers, router and filter call the next operator before Process returns: an
// entry that went in has then come out (once, or more than once through a fan-out) or was
// dropped, and it settles as such. Holding operators (recombine, stanza's container operator)
// emit later, from their own goroutines, and recombine emits only the first entry of a group,
// the others merged into it. Their entries are followed by identity (the *entry.Entry pointer,
// which operators pass on): when an entry comes out, every entry its source sent in before it
// has come out, been dropped, or been merged into an entry before it, which holds the source's
// commit until it is delivered; so they settle. That needs each recombine group to hold one
// source's entries (Config.SourceAttributes); otherwise, and for what a source sent in after
// its last output, an entry settles once it has been in the chain for the hold bound, which
// every holding operator flushes within, with the batch being built so that it settles after
// what was emitted before it (one batch in flight keeps that order).
//
// A fan-out makes outputs that carry no identity of their input: stanza's writers copy the
// entry for each output but the last, and a copy is a new pointer. In a holding chain a copy
// may come out after the entry itself, or be held while the entry itself comes out at once, so
// no output tells that its input has left the chain: every output then rides unmarked and
// every input settles by the hold bound, by which time each of its outputs came out and is in
// the batch being built or in one before it.
package stanzachain

import (
	"context"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.uber.org/zap"

	stanza "github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/entry"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/operator"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/pipeline"
)

// Config is a chain: its operators, and what tells one entry's source from another's.
type Config struct {
	Operators []operator.Config
	// SourceAttributes are the attributes the receiver sets that name an entry's source: a
	// holding operator that groups entries by one of them keeps each group to one source.
	SourceAttributes []string
}

// Input is what the receiver knows of an entry it sends in.
type Input[S comparable, T any] struct {
	Source  S     // where it came from: its file
	Ticket  T     // the receiver's handle of the entry, handed back to the Sink
	Entered int64 // when it went in, in Unix nanoseconds
}

// Sink takes what comes out of the chain, on the goroutine that calls Process, Collect,
// Expire and Stop.
type Sink[T any] interface {
	// Output takes o, an entry out of the chain, from the input whose ticket is in. With
	// carries, delivering o settles in. Without, o rides unmarked: a fan-out's copy, or an
	// output whose input settles by time (in is then its input's ticket, or the latest input's).
	Output(o *stanza.Entry, in T, carries bool)
	// Settle settles in, which left the chain without an output of its own: dropped, or merged
	// into an output before it. withBatch: it settles by time, with the batch being built.
	Settle(in T, withBatch bool)
	// Split returns the ticket of one more output of in (a fan-out in a chain that holds
	// nothing): each output settles on its own.
	Split(in T) T
}

// Chain is one chain of operators and its books. One goroutine calls its methods.
type Chain[S comparable, T any] struct {
	pipe     *pipeline.DirectedPipeline
	first    operator.Operator
	out      *terminal
	failures *atomic.Int64 // entries an operator failed on (its on_error handled them)
	hold     holding
	books    books[S, T] // with a holding operator: what may still be inside
	taken    []*stanza.Entry
	last     T // the latest input's ticket, for the copies a fan-out made
}

// holding is what the operators of a chain hold, and for how long.
type holding struct {
	bound    time.Duration // the longest an entry stays inside; 0: nothing is held past Process
	bySource bool          // each group a holding operator makes is of one source's entries
	fanOut   bool          // an entry may come out more than once
}

// New builds the operators of cfg, ending in an output of the chain's own; nil without any.
func New[S comparable, T any](cfg Config, set component.TelemetrySettings) (*Chain[S, T], error) {
	if len(cfg.Operators) == 0 {
		return nil, nil
	}
	failures := &atomic.Int64{}
	set.Logger = zap.New(&failureCounter{Core: set.Logger.Core(), failures: failures})
	out, err := newTerminal(set)
	if err != nil {
		return nil, err
	}
	pipe, err := pipeline.Config{Operators: cfg.Operators, DefaultOutput: out}.Build(set)
	if err != nil {
		return nil, err
	}
	c := &Chain[S, T]{
		pipe: pipe, out: out, failures: failures,
		hold: holding{
			bound:    holdBound(cfg.Operators),
			bySource: sourced(cfg.Operators, cfg.SourceAttributes),
			fanOut:   fansOut(cfg.Operators, pipe.Operators()),
		},
		books: newBooks[S, T](),
	}
	for _, op := range pipe.Operators() {
		if op.ID() == cfg.Operators[0].ID() {
			c.first = op
		}
	}
	return c, nil
}

// Start starts the operators.
func (c *Chain[S, T]) Start() error {
	return c.pipe.Start(nil)
}

// SettlesByTime reports whether entries settle only once the hold bound has passed: holding
// operators whose groups may mix sources, or that a fan-out feeds or follows.
func (c *Chain[S, T]) SettlesByTime() bool {
	return c.hold.bound > 0 && (!c.hold.bySource || c.hold.fanOut)
}

// FansOut reports whether an entry may come out more than once: an output may then be
// another output's too.
func (c *Chain[S, T]) FansOut() bool {
	return c.hold.fanOut
}

// Woken is signalled when entries came out of the chain.
func (c *Chain[S, T]) Woken() <-chan struct{} {
	return c.out.wake
}

// TakeFailures returns how many entries an operator failed on since the last call.
func (c *Chain[S, T]) TakeFailures() int64 {
	return c.failures.Swap(0)
}

// Process runs the chain on e. What comes out goes to sink: at once without a holding
// operator (an entry with no output settles then), or as it comes out, in Process or Collect.
func (c *Chain[S, T]) Process(ctx context.Context, sink Sink[T], e *stanza.Entry, in Input[S, T]) {
	c.last = in.Ticket
	if c.hold.bound > 0 {
		c.books.add(e, in)
	}
	// An operator that fails on the entry has logged it and applied its on_error (counted by
	// failureCounter); Process's error says nothing more.
	_ = c.first.Process(ctx, e)
	if c.hold.bound > 0 {
		c.Collect(sink)
		return
	}
	outs := c.out.take(c.taken[:0])
	for i, o := range outs {
		t := in.Ticket
		if i > 0 {
			t = sink.Split(in.Ticket) // taken while it is still the source's latest
		}
		sink.Output(o, t, true)
	}
	if len(outs) == 0 {
		sink.Settle(in.Ticket, false) // dropped (filter, on_error: drop) or written elsewhere
	}
	clear(outs)
	c.taken = outs
}

// Collect takes what came out of a holding chain (from Process, or from the operators'
// goroutines) to sink and settles what each source sent in before it.
func (c *Chain[S, T]) Collect(sink Sink[T]) {
	if c.hold.bound == 0 {
		return
	}
	outs := c.out.take(c.taken[:0])
	for _, o := range outs {
		in := c.books.byEntry[o]
		if in == nil || c.hold.fanOut {
			// A copy made by a fan-out, or an entry that may have copies still inside: it
			// rides unmarked, and its input settles by time.
			t := c.last
			if in != nil {
				t = in.Ticket
			}
			sink.Output(o, t, false)
			continue
		}
		delete(c.books.byEntry, o)
		in.out = true
		sink.Output(o, in.Ticket, true)
		if c.hold.bySource {
			c.books.settleThrough(in, func(p *held[S, T]) { c.leave(sink, p) })
		}
	}
	clear(outs)
	c.taken = outs
}

// Expire settles the entries that have been in a holding chain for longer than any operator
// holds one, at now (Unix nanoseconds): they were dropped or merged into an entry emitted
// meanwhile.
func (c *Chain[S, T]) Expire(sink Sink[T], now int64) {
	if c.hold.bound == 0 {
		return
	}
	c.books.expire(now-c.hold.bound.Nanoseconds(), func(p *held[S, T]) { c.leave(sink, p) })
}

// leave settles p, which left the chain without coming out: dropped, or merged into an output.
// When entries settle by time, it may have been merged into an entry of another source
// emitted before now, or its outputs are in the batch being built: it settles with that
// batch, or a later one.
func (c *Chain[S, T]) leave(sink Sink[T], p *held[S, T]) {
	sink.Settle(p.Ticket, c.SettlesByTime())
}

// Stop stops the operators, which emit what they hold; then nothing is inside, and what did
// not come out was dropped or merged.
func (c *Chain[S, T]) Stop(sink Sink[T]) error {
	err := c.pipe.Stop()
	if c.hold.bound > 0 {
		c.Collect(sink)
		c.Expire(sink, time.Now().Add(c.hold.bound).UnixNano()+1)
	}
	return err
}
