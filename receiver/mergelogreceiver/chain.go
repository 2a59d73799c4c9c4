package mergelogreceiver

import (
	"context"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.uber.org/zap"

	stanza "github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/entry"

	"github.com/mergelog/otelcol-mergelog/internal/ledger"
	"github.com/mergelog/otelcol-mergelog/receiver/mergelogreceiver/internal/fastops"
	"github.com/mergelog/otelcol-mergelog/receiver/mergelogreceiver/internal/metadata"
	"github.com/mergelog/otelcol-mergelog/receiver/mergelogreceiver/internal/stanzachain"
)

// chain is file_log's operators between the entries the receiver reads and its batches: run on
// the record itself (fastops) when that covers every one of them, or else by stanza
// (stanzachain), whose books say when each entry that went in settles.
type chain struct {
	fast   *fastPath
	stanza *stanzachain.Chain[*tailedFile, chainTicket]
}

// fastPath is a fastops chain and the records it runs on.
type fastPath struct {
	ops *fastops.Chain
	rec plog.LogRecord // the record being built, when the batch takes it at once
	// attrs is the most attributes a record came out with: records are made with room for
	// that many, so that parsers do not grow them.
	attrs int
}

// chainTicket is an entry that went into stanza's chain: its stream and place in its ledger,
// and its start and record number, for a ledger entry of another output of it.
type chainTicket struct {
	s      *stream
	seq    ledger.Seq
	start  int64
	record int64
}

// newChain builds the operators, ending in the receiver's batches; nil without any.
func newChain(cfg *Config, set component.TelemetrySettings) (*chain, error) {
	ops := cfg.chainOperators()
	if len(ops) == 0 {
		return nil, nil
	}
	// With encoding nop bodies are bytes, which the fast path does not cover.
	if cfg.Encoding != EncodingNop {
		if fast := fastops.New(ops, set.Logger); fast != nil {
			return &chain{fast: &fastPath{ops: fast, rec: plog.NewLogRecord()}}, nil
		}
	}
	var sources []string // the attributes that name an entry's file
	if cfg.IncludeFilePath {
		sources = append(sources, attrFilePath)
	}
	if cfg.IncludeFileName {
		sources = append(sources, attrFileName)
	}
	sc, err := stanzachain.New[*tailedFile, chainTicket](stanzachain.Config{Operators: ops, SourceAttributes: sources}, set)
	if err != nil {
		return nil, err
	}
	return &chain{stanza: sc}, nil
}

// start starts stanza's operators; the fast path has nothing to start.
func (c *chain) start() error {
	if c == nil || c.stanza == nil {
		return nil
	}
	return c.stanza.Start()
}

// settlesByTime reports whether entries settle only once stanza's holding operators have
// flushed whatever they hold (see stanzachain).
func (c *chain) settlesByTime() bool {
	return c != nil && c.stanza != nil && c.stanza.SettlesByTime()
}

// woken is signalled when entries came out of stanza's chain; nil (never) otherwise.
func (c *chain) woken() <-chan struct{} {
	if c == nil || c.stanza == nil {
		return nil
	}
	return c.stanza.Woken()
}

// toChain runs the operators on e; what comes out goes on to the merge or the batch.
func (r *mergelogReceiver) toChain(e *entry) {
	c := r.chain
	if c.fast != nil {
		r.toFastPath(e)
		return
	}
	in := stanzachain.Input[*tailedFile, chainTicket]{
		Source: e.s.f, Ticket: chainTicket{s: e.s, seq: e.seq, start: e.start, record: e.record}, Entered: e.observed,
	}
	// Stanza's operators get a context of their own: entries reach them inside a joiner's
	// callback, and Shutdown stops them with Stop, not by a cancellation.
	c.stanza.Process(context.Background(), chainSink{r}, r.stanzaEntry(e), in)
}

// toFastPath builds e's record as the batch would, runs the fast path on it, and sends the
// record on, or settles e when an operator dropped it.
func (r *mergelogReceiver) toFastPath(e *entry) {
	p := r.chain.fast
	// Without a merge window the record goes into the batch at once, which moves it out and
	// leaves p.rec empty for the next one; the merge window holds records, each its own.
	lr := p.rec
	if r.merge != nil {
		lr = plog.NewLogRecord()
	}
	lr.Attributes().EnsureCapacity(p.attrs)
	fillRecord(lr, e, r.out.rawBody, r.out.numbers)
	if !p.ops.Run(lr) {
		if r.merge == nil {
			p.rec = plog.NewLogRecord()
		}
		r.checkpoints.settle(e.s, e.seq)
		return
	}
	p.attrs = max(p.attrs, lr.Attributes().Len())
	e.rec, e.native = lr, true
	e.at, e.timed = int64(lr.Timestamp()), lr.Timestamp() != 0
	e.body = ""
	if lr.Body().Type() == pcommon.ValueTypeStr {
		e.body = lr.Body().Str()
	}
	r.emitOutput(e)
}

// chainRound is the run loop's turn of the chain: what came out from stanza's operators'
// goroutines, entries that expired, the failures to count.
func (r *mergelogReceiver) chainRound(now time.Time) {
	c := r.chain
	if c == nil {
		return
	}
	var failures int64
	if c.fast != nil {
		failures = c.fast.ops.TakeFailures()
	} else {
		c.stanza.Collect(chainSink{r})
		c.stanza.Expire(chainSink{r}, now.UnixNano())
		failures = c.stanza.TakeFailures()
	}
	if failures > 0 {
		r.tel.builder.ReceiverMergelogOperatorErrors.Add(context.Background(), failures, r.tel.self)
	}
}

// stopChain, at Shutdown, stops stanza's operators, which emit what they hold; then nothing is
// inside, and what did not come out was dropped or merged.
func (r *mergelogReceiver) stopChain() {
	c := r.chain
	if c == nil || c.stanza == nil {
		return
	}
	if err := c.stanza.Stop(chainSink{r}); err != nil {
		r.set.Logger.Warn("Stopping the operators failed", zap.Error(err))
	}
}

// chainSink takes what comes out of stanza's chain into the receiver.
type chainSink struct{ r *mergelogReceiver }

func (k chainSink) Output(o *stanza.Entry, in chainTicket, carries bool) {
	oe := k.r.output(o, in.s)
	if carries {
		oe.seq = in.seq
	} else {
		oe.unmarked = true
	}
	k.r.emitOutput(&oe)
}

func (k chainSink) Settle(in chainTicket, withBatch bool) {
	if withBatch {
		k.r.out.batch.settleWith(in.s, in.seq)
		return
	}
	k.r.checkpoints.settle(in.s, in.seq)
}

// Split gives one more output of in a ledger entry of its own, added while in is still its
// stream's last.
func (chainSink) Split(in chainTicket) chainTicket {
	in.seq = in.s.books.Entries.Add(in.start, in.record)
	return in
}

// stanzaEntry is the entry file_log's file input makes of e: the body, the attributes
// (static, log.file.*, log.iostream), the resource, the timestamp when one was found, and
// the time the entry was read.
func (r *mergelogReceiver) stanzaEntry(e *entry) *stanza.Entry {
	se := stanza.New()
	se.ObservedTimestamp = time.Unix(0, e.observed)
	if e.timed {
		se.Timestamp = time.Unix(0, e.at)
	}
	if r.out.rawBody {
		se.Body = []byte(e.body)
	} else {
		se.Body = e.body
	}
	se.Attributes = e.s.attrs.m.AsRaw()
	if r.out.numbers {
		se.Attributes[attrRecordNumber] = e.record
	}
	if e.logtag != "" {
		se.Attributes[attrLogTag] = e.logtag
	}
	if e.s.attrs.perRecord {
		e.s.attrs.putPerRecordRaw(se.Attributes, e)
	}
	if res := e.s.f.resource.attrs; res.Len() > 0 {
		se.Resource = res.AsRaw()
	}
	se.ScopeName = metadata.ScopeName
	return se
}

// output is the entry of what came out of stanza's operators, o, from stream s (its ledger
// entry set by the caller).
func (r *mergelogReceiver) output(o *stanza.Entry, s *stream) entry {
	e := entry{s: s, out: o, observed: o.ObservedTimestamp.UnixNano(), shared: r.chain.stanza.FansOut()}
	if !o.Timestamp.IsZero() {
		e.at, e.timed = o.Timestamp.UnixNano(), true
	}
	if body, ok := o.Body.(string); ok {
		e.body = body
	}
	return e
}
