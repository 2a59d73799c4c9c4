package mergelogprocessor // import "github.com/mergelog/otelcol-mergelog/processor/mergelogprocessor"

import (
	"slices"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/mergelog/otelcol-mergelog/internal/mergewindow"
)

// stream is one merge key's records: a merge window with one input per source. The window
// holds references to the records (recordRef), which hold no pointer: its heaps move small
// values, and the GC need not look at them, whatever a record is.
type stream struct {
	window      *mergewindow.Window[recordRef]
	sources     map[string]*source
	origins     []origin
	freeOrigins []uint32 // slots of origins to reuse
	lateSeen    int64    // window.Late() already counted
	// discovery holds every record back by max_delay, whatever the watermarks, during the
	// stream's first max_delay (until discoveryEnds), when sources that have not sent yet
	// cannot be waited for: it is an input that never shows an entry. Without it, the first
	// source heard after a gateway (re)start or a rebalance would be released at once and the
	// others' records would all be late. nil once over.
	discovery     *mergewindow.Input[recordRef]
	discoveryEnds int64
}

// source is one sender of a stream (a node's agent), with its watermark in the window.
type source struct {
	input       *mergewindow.Input[recordRef]
	lastArrival int64 // on the processor's clock
}

// origin is one scope's records as they arrived, while some of them are held: released
// records are moved out of recs into output batches, and its resource and scope are copied
// there once per run of records that share them. One per scope rather than per record, so
// that holding a record costs no more than its entry in the window.
type origin struct {
	rl   plog.ResourceLogs
	sl   plog.ScopeLogs
	recs plog.LogRecordSlice
	seq  uint64 // the stored batch it came in (0: none)
	held int    // its records still in the window
}

// recordRef is a held record: record rec of origins[origin].
type recordRef struct{ origin, rec uint32 }

func newStream(maxDelay time.Duration, now int64) *stream {
	s := &stream{window: mergewindow.New[recordRef](maxDelay), sources: map[string]*source{}}
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
			recs := sl.LogRecords()
			if recs.Len() == 0 {
				continue
			}
			o := s.addOrigin(origin{rl: rl, sl: sl, recs: recs, seq: seq, held: recs.Len()})
			s.window.Reserve(src.input, recs.Len())
			for i, lr := range recs.All() {
				at, timed := instantOf(lr)
				s.window.Push(src.input, mergewindow.Entry[recordRef]{
					Value: recordRef{o, uint32(i)}, At: at, Timed: timed, Arrived: now,
				})
			}
			n += recs.Len()
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

func (s *stream) addOrigin(o origin) uint32 {
	if n := len(s.freeOrigins); n > 0 {
		i := s.freeOrigins[n-1]
		s.freeOrigins = s.freeOrigins[:n-1]
		s.origins[i] = o
		return i
	}
	s.origins = append(s.origins, o)
	return uint32(len(s.origins) - 1)
}

// free empties the slot of an origin none of whose records is held any more, dropping its
// references, so that the batch it came in can be freed once its records went on.
func (s *stream) free(slot uint32) {
	s.origins[slot] = origin{}
	s.freeOrigins = append(s.freeOrigins, slot)
}
