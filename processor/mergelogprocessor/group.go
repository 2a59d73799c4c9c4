package mergelogprocessor // import "github.com/mergelog/otelcol-mergelog/processor/mergelogprocessor"

import (
	"slices"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/mergelog/otelcol-mergelog/internal/mergewindow"
)

// group is the records of one merge key: a merge window with one input per source. The window
// holds references to the records (recordRef), which hold no pointer: its heaps move small
// values, and the GC need not look at them, whatever a record is.
type group struct {
	window      *mergewindow.Window[recordRef]
	sources     map[string]*source
	origins     []origin
	freeOrigins []uint32 // slots of origins to reuse
	lateSeen    int64    // window.Late() already counted
	// discovery holds every record back by max_delay, whatever the watermarks, during the
	// group's first max_delay (until discoveryEnds), when sources that have not sent yet
	// cannot be waited for: it is an input that never shows an entry. Without it, the first
	// source heard after a gateway (re)start or a rebalance would be released at once and the
	// others' records would all be late. nil once over.
	discovery     *mergewindow.Input[recordRef]
	discoveryEnds int64
}

// source is one sender of a group (a node's agent), with its watermark in the window.
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

func newGroup(maxDelay time.Duration, now int64) *group {
	g := &group{window: mergewindow.New[recordRef](maxDelay), sources: map[string]*source{}}
	g.discovery, g.discoveryEnds = g.window.AddInput(), now+maxDelay.Nanoseconds()
	return g
}

// endDiscovery lets the watermarks release once the group's first max_delay is over.
func (g *group) endDiscovery(now int64) {
	if g.discovery != nil && now >= g.discoveryEnds {
		g.window.Finish(g.discovery)
		g.discovery = nil
	}
}

// hold pushes every record of ld into the group of its merge key and returns the groups it
// touched. Called with p.mu held.
func (p *mergelogProcessor) hold(ld plog.Logs, seq uint64, now int64) []*group {
	var touched []*group
	n := 0
	for _, rl := range ld.ResourceLogs().All() {
		attrs := rl.Resource().Attributes()
		g := p.groupOf(attrs, now)
		if !slices.Contains(touched, g) {
			touched = append(touched, g)
		}
		src := g.sourceOf(sourceName(attrs, p.cfg.SourceAttributes))
		src.lastArrival = now
		for _, sl := range rl.ScopeLogs().All() {
			recs := sl.LogRecords()
			if recs.Len() == 0 {
				continue
			}
			o := g.addOrigin(origin{rl: rl, sl: sl, recs: recs, seq: seq, held: recs.Len()})
			g.window.Reserve(src.input, recs.Len())
			for i, lr := range recs.All() {
				at, timed := instantOf(lr)
				g.window.Push(src.input, mergewindow.Entry[recordRef]{
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

// groupOf returns the group of the merge key the resource attributes give, creating it.
func (p *mergelogProcessor) groupOf(attrs pcommon.Map, now int64) *group {
	p.keyBuf = appendMergeKey(p.keyBuf[:0], attrs, p.cfg.MergeKey)
	if g, ok := p.groups[string(p.keyBuf)]; ok { // the lookup does not allocate
		return g
	}
	g := newGroup(p.cfg.MaxDelay, now)
	p.groups[string(p.keyBuf)] = g
	return g
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

func (g *group) sourceOf(name string) *source {
	if src, ok := g.sources[name]; ok {
		return src
	}
	src := &source{input: g.window.AddInput()}
	g.sources[name] = src
	return src
}

// retireIdle lets go of the sources that sent nothing for idle nanoseconds: they no longer hold
// the others back, and one that comes back is a new input. It returns how many went.
func (g *group) retireIdle(now, idle int64) int {
	n := 0
	for name, src := range g.sources {
		if now-src.lastArrival >= idle {
			g.window.Finish(src.input)
			delete(g.sources, name)
			n++
		}
	}
	return n
}

// empty says the group holds nothing and has no source left: it can be forgotten.
func (g *group) empty() bool {
	return len(g.sources) == 0 && g.window.Len() == 0 && g.discovery == nil
}

func (g *group) addOrigin(o origin) uint32 {
	if n := len(g.freeOrigins); n > 0 {
		i := g.freeOrigins[n-1]
		g.freeOrigins = g.freeOrigins[:n-1]
		g.origins[i] = o
		return i
	}
	g.origins = append(g.origins, o)
	return uint32(len(g.origins) - 1)
}

// free empties the slot of an origin none of whose records is held any more, dropping its
// references, so that the batch it came in can be freed once its records went on.
func (g *group) free(slot uint32) {
	g.origins[slot] = origin{}
	g.freeOrigins = append(g.freeOrigins, slot)
}
