package merge

import "math"

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
type Window[T any] struct {
	hold     int64 // the window, in nanoseconds
	heap     []pending[T]
	arrivals []arrival // entries in arrival order, to find the ones held too long
	inputs   []*Input
	seq      uint64
	frontier int64 // largest instant released so far
	late     int64
}

// Input is one source of a Window.
type Input struct {
	latest   int64 // largest instant pushed
	prev     int64 // instant of the previous entry (for untimed entries)
	seen     bool
	finished bool
	held     int
}

// Held is the number of this input's entries waiting in the window; callers stop reading an
// input that holds too many, which bounds memory while the others catch up.
func (in *Input) Held() int { return in.held }

type pending[T any] struct {
	at, arrived int64
	seq         uint64
	in          *Input
	v           T
}

type arrival struct{ arrived, at int64 }

// NewWindow returns a window that holds entries at most hold nanoseconds.
func NewWindow[T any](hold int64) *Window[T] {
	return &Window[T]{hold: hold, frontier: math.MinInt64}
}

// AddInput registers an input; it holds the others back until it shows entries or finishes.
func (w *Window[T]) AddInput() *Input {
	in := &Input{prev: math.MinInt64, latest: math.MinInt64}
	w.inputs = append(w.inputs, in)
	return in
}

// Finish marks the input as done: it no longer holds the others back.
func (w *Window[T]) Finish(in *Input) {
	in.finished = true
	for i, x := range w.inputs {
		if x == in {
			w.inputs = append(w.inputs[:i], w.inputs[i+1:]...)
			return
		}
	}
}

// Push adds an entry that arrived at now (Unix nanoseconds). An entry without a timestamp
// (timed false) takes its input's previous instant, so it stays next to the entry before it.
func (w *Window[T]) Push(in *Input, at int64, timed bool, now int64, v T) {
	if !timed {
		at = in.prev
	}
	in.prev = at
	if at > in.latest || !in.seen {
		in.latest = max(in.latest, at)
		in.seen = true
	}
	in.held++
	w.seq++
	w.heap = append(w.heap, pending[T]{at: at, arrived: now, seq: w.seq, in: in, v: v})
	w.up(len(w.heap) - 1)
	w.arrivals = append(w.arrivals, arrival{now, at})
}

// Late is the number of entries released after entries at later instants.
func (w *Window[T]) Late() int64 { return w.late }

// Len is the number of entries held.
func (w *Window[T]) Len() int { return len(w.heap) }

// Release emits, in order, every entry that may go out at now, with how long it was held.
func (w *Window[T]) Release(now int64, emit func(v T, heldFor int64)) {
	limit := w.watermark()
	// Entries held for the whole window go out, and so does everything at or before them.
	i := 0
	for ; i < len(w.arrivals) && now-w.arrivals[i].arrived >= w.hold; i++ {
		limit = max(limit, w.arrivals[i].at)
	}
	w.arrivals = w.arrivals[i:]
	if len(w.arrivals) == 0 {
		w.arrivals = w.arrivals[:0:cap(w.arrivals)]
	}
	for len(w.heap) > 0 && (w.heap[0].at <= limit || w.heap[0].at < w.frontier) {
		p := w.pop()
		if p.at < w.frontier {
			w.late++
		}
		w.frontier = max(w.frontier, p.at)
		p.in.held--
		emit(p.v, now-p.arrived)
	}
}

// Flush releases everything held, in order (at shutdown).
func (w *Window[T]) Flush(now int64, emit func(v T, heldFor int64)) {
	for len(w.heap) > 0 {
		p := w.pop()
		if p.at < w.frontier {
			w.late++
		}
		w.frontier = max(w.frontier, p.at)
		p.in.held--
		emit(p.v, now-p.arrived)
	}
	w.arrivals = w.arrivals[:0]
}

// watermark is the instant up to which every active input has shown entries.
func (w *Window[T]) watermark() int64 {
	wm := int64(math.MaxInt64)
	for _, in := range w.inputs {
		if !in.seen {
			return math.MinInt64
		}
		wm = min(wm, in.latest)
	}
	return wm
}

func (w *Window[T]) less(i, j int) bool {
	a, b := &w.heap[i], &w.heap[j]
	return a.at < b.at || (a.at == b.at && a.seq < b.seq)
}

func (w *Window[T]) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !w.less(i, p) {
			return
		}
		w.heap[i], w.heap[p] = w.heap[p], w.heap[i]
		i = p
	}
}

func (w *Window[T]) pop() pending[T] {
	h := w.heap
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	var zero pending[T]
	h[n] = zero
	w.heap = h[:n]
	for i := 0; ; {
		l := 2*i + 1
		if l >= n {
			break
		}
		c := l
		if r := l + 1; r < n && w.less(r, l) {
			c = r
		}
		if !w.less(c, i) {
			break
		}
		w.heap[i], w.heap[c] = w.heap[c], w.heap[i]
		i = c
	}
	return top
}
