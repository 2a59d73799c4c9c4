// Package mergewindow orders entries from live inputs, which may still grow, by instant under a
// bounded delay: the receiver's merge of files that are still being written.
package mergewindow

import (
	"math"
	"slices"
	"time"
)

// Window orders entries from live inputs, which may still grow, under a bounded delay.
//
// Guarantee: entries are released in (instant, arrival) order, except that an entry is never
// held for longer than the window. Precisely, an entry is released once every active input has
// shown an entry at or after its instant (the watermark: the smallest latest-instant over the
// active inputs), or once it, or an entry at a later instant, has been held for the window.
// A finished input stops holding the others back. So a quiet input delays the others by at
// most the window, and the output is exactly ordered whenever every input reaches each instant
// within the window of the others. An entry that arrives after entries at later instants have
// already gone out (a quiet input waking up late, or an input that goes backwards) is released
// at once and counted as late.
//
// Inputs are mostly in time order, so each input keeps its entries in a queue in (instant,
// arrival) order, and releasing is a merge of the queue heads over a heap of the inputs: its cost
// grows with the log of the number of inputs, not of the entries held. An entry earlier than
// the last one queued by its input goes to a heap of its own (strays), merged with the queues.
type Window[T any] struct {
	hold     int64 // the window, in nanoseconds
	active   []*Input[T]
	heads    []*Input[T] // inputs with queued entries: a min-heap by their first entry
	strays   []stray[T]  // entries that came out of their input's order: a min-heap
	arrivals []arrival   // arrival times of the entries held, in order, one per distinct time
	seq      uint64
	held     int
	frontier int64 // largest instant released so far
	late     int64
	// owed is the limit of a release that its emit callback stopped (math.MinInt64 if none):
	// the entries up to it were due, and go out at the next Release whatever the window says.
	owed int64
}

// Input is one source of a Window.
type Input[T any] struct {
	latest   int64 // largest instant pushed
	prev     int64 // instant of the previous entry (for untimed entries)
	seen     bool
	finished bool
	held     int
	queue    []pending[T] // in (instant, arrival) order; queue[first:] are held
	first    int
	pos      int // index in Window.heads, while queued
}

// Held is the number of this input's entries waiting in the window; callers stop reading an
// input that holds too many, which bounds memory while the others catch up.
func (in *Input[T]) Held() int { return in.held }

// pending holds no pointer (for a T without any), so moving it needs no write barrier.
type pending[T any] struct {
	at, arrived int64
	seq         uint64
	v           T
}

type stray[T any] struct {
	pending[T]
	in *Input[T]
}

// arrival is the latest instant of the entries that arrived at one time.
type arrival struct{ arrived, at int64 }

func (p *pending[T]) before(q *pending[T]) bool {
	return p.at < q.at || (p.at == q.at && p.seq < q.seq)
}

// New returns a window that holds entries at most hold.
func New[T any](hold time.Duration) *Window[T] {
	return &Window[T]{hold: hold.Nanoseconds(), frontier: math.MinInt64, owed: math.MinInt64}
}

// AddInput registers an input; it holds the others back until it shows entries or finishes.
func (w *Window[T]) AddInput() *Input[T] {
	in := &Input[T]{prev: math.MinInt64, latest: math.MinInt64}
	w.active = append(w.active, in)
	return in
}

// Finish marks the input as done: it no longer holds the others back.
func (w *Window[T]) Finish(in *Input[T]) {
	in.finished = true
	for i, x := range w.active {
		if x == in {
			w.active = append(w.active[:i], w.active[i+1:]...)
			return
		}
	}
}

// Entry is one value pushed into the window with its instant and its arrival.
type Entry[T any] struct {
	Value T
	// At is the entry's instant in Unix nanoseconds, meaningful when Timed. An entry without a
	// timestamp takes its input's previous instant, so it stays next to the entry before it.
	At    int64
	Timed bool
	// Arrived is when the entry arrived, on the clock Release and Flush are given.
	Arrived int64
}

// Push adds an entry of input in.
func (w *Window[T]) Push(in *Input[T], e Entry[T]) {
	at, now, v := e.At, e.Arrived, e.Value
	if !e.Timed {
		at = in.prev
	}
	in.prev = at
	if at > in.latest || !in.seen {
		in.latest = max(in.latest, at)
		in.seen = true
	}
	in.held++
	w.held++
	w.seq++
	p := pending[T]{at: at, arrived: now, seq: w.seq, v: v}
	switch n := len(in.queue); {
	case n > in.first && at < in.queue[n-1].at:
		w.strays = append(w.strays, stray[T]{p, in})
		w.strayUp(len(w.strays) - 1)
	case n == in.first:
		in.queue, in.first = append(in.queue[:0], p), 0
		in.pos = len(w.heads)
		w.heads = append(w.heads, in)
		w.headUp(in.pos)
	default:
		in.queue = append(in.queue, p)
	}
	if n := len(w.arrivals); n > 0 && w.arrivals[n-1].arrived == now {
		w.arrivals[n-1].at = max(w.arrivals[n-1].at, at)
	} else {
		w.arrivals = append(w.arrivals, arrival{now, at})
	}
}

// Reserve makes room for n more entries of in, so that pushing a batch of them grows its
// queue once rather than by doubling.
func (w *Window[T]) Reserve(in *Input[T], n int) {
	if in.first == len(in.queue) { // empty: Push would start it over anyway
		in.queue, in.first = in.queue[:0], 0
	}
	in.queue = slices.Grow(in.queue, n)
}

// Late is the number of entries released after entries at later instants.
func (w *Window[T]) Late() int64 { return w.late }

// Len is the number of entries held.
func (w *Window[T]) Len() int { return w.held }

// Release emits, in order, every entry that may go out at now, with how long it was held,
// until emit returns false (the caller cannot take more now): what was due then goes out at
// the next Release.
func (w *Window[T]) Release(now int64, emit func(v T, heldFor int64) (more bool)) {
	limit := max(w.watermark(), w.owed)
	// Entries held for the whole window go out, and so does everything at or before them.
	i := 0
	for ; i < len(w.arrivals) && now-w.arrivals[i].arrived >= w.hold; i++ {
		limit = max(limit, w.arrivals[i].at)
	}
	w.arrivals = w.arrivals[i:]
	if len(w.arrivals) == 0 {
		w.arrivals = w.arrivals[:0:cap(w.arrivals)]
	}
	w.owed = math.MinInt64
	if !w.emit(now, limit, emit) {
		w.owed = limit
	}
}

// Flush releases everything held, in order (at shutdown), until emit returns false.
func (w *Window[T]) Flush(now int64, emit func(v T, heldFor int64) (more bool)) {
	if w.emit(now, math.MaxInt64, emit) {
		w.arrivals = w.arrivals[:0]
	}
}

// emit releases entries in order while the first one held is at or before limit, or before
// the frontier (late: holding it would not put it back in order); false if emit stopped it.
func (w *Window[T]) emit(now, limit int64, emit func(v T, heldFor int64) (more bool)) bool {
	for {
		var p *pending[T]
		var q *Input[T]
		if len(w.heads) > 0 {
			q = w.heads[0]
			p = &q.queue[q.first]
		}
		fromStrays := len(w.strays) > 0 && (p == nil || w.strays[0].before(p))
		if fromStrays {
			p = &w.strays[0].pending
		}
		if p == nil || (p.at > limit && p.at >= w.frontier) {
			return true
		}
		at, v, heldFor := p.at, p.v, now-p.arrived
		if fromStrays {
			q = w.strays[0].in
			w.popStray()
		} else {
			w.popHead(q)
		}
		if at < w.frontier {
			w.late++
		}
		w.frontier = max(w.frontier, at)
		q.held--
		w.held--
		if !emit(v, heldFor) {
			return false
		}
	}
}

// watermark is the instant up to which every active input has shown entries.
func (w *Window[T]) watermark() int64 {
	wm := int64(math.MaxInt64)
	for _, in := range w.active {
		if !in.seen {
			return math.MinInt64
		}
		wm = min(wm, in.latest)
	}
	return wm
}

// popHead drops the first entry of in, the input at the top of heads.
func (w *Window[T]) popHead(in *Input[T]) {
	var zero pending[T]
	in.queue[in.first] = zero
	in.first++
	if in.first == len(in.queue) {
		in.queue, in.first = in.queue[:0], 0
		if cap(in.queue) > 1024 {
			in.queue = nil // memory follows what is held
		}
		n := len(w.heads) - 1
		w.heads[0] = w.heads[n]
		w.heads[0].pos = 0
		w.heads[n] = nil
		w.heads = w.heads[:n]
	} else if in.first >= len(in.queue)/2 && in.first >= 64 {
		// Reuse the front once it is the larger part, so memory follows what is held.
		n := copy(in.queue, in.queue[in.first:])
		clear(in.queue[n:])
		in.queue, in.first = in.queue[:n], 0
	}
	w.headDown(0)
}

func (w *Window[T]) headBefore(i, j int) bool {
	a, b := w.heads[i], w.heads[j]
	return a.queue[a.first].before(&b.queue[b.first])
}

func (w *Window[T]) headSwap(i, j int) {
	h := w.heads
	h[i], h[j] = h[j], h[i]
	h[i].pos, h[j].pos = i, j
}

func (w *Window[T]) headUp(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !w.headBefore(i, p) {
			return
		}
		w.headSwap(i, p)
		i = p
	}
}

func (w *Window[T]) headDown(i int) {
	n := len(w.heads)
	for {
		c := 2*i + 1
		if c >= n {
			return
		}
		if r := c + 1; r < n && w.headBefore(r, c) {
			c = r
		}
		if !w.headBefore(c, i) {
			return
		}
		w.headSwap(i, c)
		i = c
	}
}

func (w *Window[T]) strayUp(i int) {
	h := w.strays
	for i > 0 {
		p := (i - 1) / 2
		if !h[i].before(&h[p].pending) {
			return
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (w *Window[T]) popStray() {
	h := w.strays
	n := len(h) - 1
	h[0] = h[n]
	h[n] = stray[T]{}
	h = h[:n]
	w.strays = h
	for i := 0; ; {
		c := 2*i + 1
		if c >= n {
			return
		}
		if r := c + 1; r < n && h[r].before(&h[c].pending) {
			c = r
		}
		if !h[c].before(&h[i].pending) {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}
