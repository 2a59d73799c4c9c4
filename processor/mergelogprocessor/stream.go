package mergelogprocessor // import "github.com/mergelog/otelcol-mergelog/processor/mergelogprocessor"

import (
	"slices"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/mergelog/otelcol-mergelog/internal/mergewindow"
)

// stream is one merge key's records: a merge window with one input per source. The window
// holds slot numbers of held, so that its heaps move small values whatever a record is.
type stream struct {
	window   *mergewindow.Window[uint32]
	sources  map[string]*source
	held     []heldRecord
	free     []uint32 // slots of held to reuse
	lateSeen int64    // window.Late() already counted
	// discovery holds every record back by max_delay, whatever the watermarks, during the
	// stream's first max_delay (until discoveryEnds), when sources that have not sent yet
	// cannot be waited for: it is an input that never shows an entry. Without it, the first
	// source heard after a gateway (re)start or a rebalance would be released at once and the
	// others' records would all be late. nil once over.
	discovery     *mergewindow.Input[uint32]
	discoveryEnds int64
}

// source is one sender of a stream (a node's agent), with its watermark in the window.
type source struct {
	input       *mergewindow.Input[uint32]
	lastArrival int64 // on the processor's clock
}

// heldRecord is a record where it arrived: it is moved into an output batch when released,
// and its resource and scope are copied there once per run of records that share them.
type heldRecord struct {
	rl  plog.ResourceLogs
	sl  plog.ScopeLogs
	lr  plog.LogRecord
	seq uint64 // the stored batch it came in (0: none)
}

func newStream(maxDelay time.Duration, now int64) *stream {
	s := &stream{window: mergewindow.New[uint32](maxDelay), sources: map[string]*source{}}
	s.discovery, s.discoveryEnds = s.window.AddInput(), now+maxDelay.Nanoseconds()
	return s
}

// endDiscovery lets the watermarks release once the stream's first max_delay is over.
func (s *stream) endDiscovery(now int64) {
	if s.discovery != nil && now >= s.discoveryEnds {
		s.window.Finish(s.discovery)
		s.discovery = nil
	}
}

// hold pushes every record of ld into the stream of its merge key and returns the streams it
// touched. Called with p.mu held.
func (p *mergelogProcessor) hold(ld plog.Logs, seq uint64, now int64) []*stream {
	var touched []*stream
	n := 0
	for _, rl := range ld.ResourceLogs().All() {
		attrs := rl.Resource().Attributes()
		s := p.streamOf(attrs, now)
		if !slices.Contains(touched, s) {
			touched = append(touched, s)
		}
		src := s.sourceOf(sourceName(attrs, p.cfg.SourceAttributes))
		src.lastArrival = now
		for _, sl := range rl.ScopeLogs().All() {
			for _, lr := range sl.LogRecords().All() {
				at, timed := instantOf(lr)
				n++
				s.window.Push(src.input, mergewindow.Entry[uint32]{
					Value: s.put(heldRecord{rl: rl, sl: sl, lr: lr, seq: seq}), At: at, Timed: timed, Arrived: now,
				})
			}
		}
	}
	p.tel.held(n)
	return touched
}

// instantOf is when a record happened: its timestamp, else when it was observed; a record with
// neither stays next to the record before it from its source.
func instantOf(lr plog.LogRecord) (at int64, timed bool) {
	if ts := lr.Timestamp(); ts != 0 {
		return int64(ts), true
	}
	if ts := lr.ObservedTimestamp(); ts != 0 {
		return int64(ts), true
	}
	return 0, false
}

// streamOf returns the stream of the merge key the resource attributes give, creating it.
func (p *mergelogProcessor) streamOf(attrs pcommon.Map, now int64) *stream {
	p.keyBuf = appendMergeKey(p.keyBuf[:0], attrs, p.cfg.MergeKey)
	if s, ok := p.streams[string(p.keyBuf)]; ok { // the lookup does not allocate
		return s
	}
	s := newStream(p.cfg.MaxDelay, now)
	p.streams[string(p.keyBuf)] = s
	return s
}

// appendMergeKey appends the values of the merge key's attributes, each marked present or
// absent, so that a missing attribute and an empty value are different keys.
func appendMergeKey(b []byte, attrs pcommon.Map, names []string) []byte {
	for _, name := range names {
		v, ok := attrs.Get(name)
		if !ok {
			b = append(b, 0)
			continue
		}
		b = append(b, 1)
		b = append(b, v.AsString()...)
		b = append(b, 0)
	}
	return b
}

// sourceName is the value of the first source attribute the resource has ("" if none).
func sourceName(attrs pcommon.Map, names []string) string {
	for _, name := range names {
		if v, ok := attrs.Get(name); ok {
			return v.AsString()
		}
	}
	return ""
}

func (s *stream) sourceOf(name string) *source {
	if src, ok := s.sources[name]; ok {
		return src
	}
	src := &source{input: s.window.AddInput()}
	s.sources[name] = src
	return src
}

// retireIdle lets go of the sources that sent nothing for idle nanoseconds: they no longer hold
// the others back, and one that comes back is a new input. It returns how many went.
func (s *stream) retireIdle(now, idle int64) int {
	n := 0
	for name, src := range s.sources {
		if now-src.lastArrival >= idle {
			s.window.Finish(src.input)
			delete(s.sources, name)
			n++
		}
	}
	return n
}

// empty says the stream holds nothing and has no source left: it can be forgotten.
func (s *stream) empty() bool {
	return len(s.sources) == 0 && s.window.Len() == 0 && s.discovery == nil
}

func (s *stream) put(h heldRecord) uint32 {
	if n := len(s.free); n > 0 {
		i := s.free[n-1]
		s.free = s.free[:n-1]
		s.held[i] = h
		return i
	}
	s.held = append(s.held, h)
	return uint32(len(s.held) - 1)
}

// take empties slot i (dropping its references, so that the batch it came in can be freed
// once all its records went) and returns what it held.
func (s *stream) take(i uint32) heldRecord {
	h := s.held[i]
	s.held[i] = heldRecord{}
	s.free = append(s.free, i)
	return h
}
