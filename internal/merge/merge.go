// Package merge merges several inputs, each roughly in time order, into one stream ordered by
// UTC instant: a k-way merge over a binary heap, O(N log K) for N entries from K inputs.
//
// Order: entries go out by (instant, input index), so equal instants keep the inputs' order and
// each input's own order is kept (the merge is stable). An entry without a parsable timestamp
// takes the instant of the previous entry of its input (as C mergelog does), so it stays next to
// its neighbour; entries before an input's first timestamp go out as early as possible. An input
// that goes backwards in time is still merged without loss: its entries are never reordered
// among themselves, and each step back is counted.
package merge

import (
	"errors"
	"io"
	"math"
)

// Source yields one input's entries in input order.
type Source interface {
	// Next returns the next entry (valid until the following call) and its instant in Unix
	// nanoseconds; timed is false when the entry has no parsable timestamp. At the end it
	// returns io.EOF; any other error ends that input after the entries before it.
	Next() (entry []byte, unixNano int64, timed bool, err error)
}

// Stats counts what one input contributed.
type Stats struct {
	Entries    int64
	Untimed    int64 // entries without a parsable timestamp
	OutOfOrder int64 // entries earlier than the entry before them in the same input
	First      int64 // smallest instant seen (valid when Timed() > 0)
	Last       int64 // largest instant seen
}

// Timed is the number of entries that carried a timestamp.
func (s Stats) Timed() int64 { return s.Entries - s.Untimed }

// InputError is an input's failure; the merge goes on with the other inputs.
type InputError struct {
	Input int
	Err   error
}

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

type input struct {
	src   Source
	index int
	entry []byte
	at    int64 // instant the entry is ordered by
	prev  int64 // instant of the previous entry (math.MinInt64 before the first timestamp)
	stats Stats
}

// Merger is the k-way merge. It is not safe for concurrent use.
type Merger struct {
	inputs  []*input
	heap    []*input      // min-heap by (at, index)
	failed  []*InputError // input failures not yet returned
	started bool
	last    *input // input whose entry was returned last; advanced on the next call
}

// New merges the sources; their indices in the slice break ties.
func New(sources []Source) *Merger {
	m := &Merger{inputs: make([]*input, len(sources)), heap: make([]*input, 0, len(sources))}
	for i, s := range sources {
		m.inputs[i] = &input{src: s, index: i, prev: math.MinInt64, stats: Stats{First: math.MaxInt64, Last: math.MinInt64}}
	}
	return m
}

// Next returns the next entry in merged order and the index of its input. It returns io.EOF when
// every input is done. An *InputError reports a failed input; call Next again to go on.
func (m *Merger) Next() (entry []byte, index int, err error) {
	switch {
	case !m.started:
		m.started = true
		for _, in := range m.inputs {
			if m.advance(in) {
				m.heap = append(m.heap, in)
			}
		}
		for i := len(m.heap)/2 - 1; i >= 0; i-- {
			m.down(i)
		}
	case m.last != nil:
		if m.advance(m.last) {
			m.down(0)
		} else {
			m.popTop()
		}
		m.last = nil
	}
	if len(m.failed) > 0 {
		e := m.failed[0]
		m.failed = m.failed[1:]
		return nil, e.Input, e
	}
	if len(m.heap) == 0 {
		return nil, -1, io.EOF
	}
	top := m.heap[0]
	m.last = top
	return top.entry, top.index, nil
}

// Stats returns the counters of input i (its index in New's slice).
func (m *Merger) Stats(i int) Stats { return m.inputs[i].stats }

// advance loads the input's next entry; false when the input is done (a failure is queued).
func (m *Merger) advance(in *input) bool {
	entry, at, timed, err := in.src.Next()
	if err != nil {
		if !errors.Is(err, io.EOF) {
			m.failed = append(m.failed, &InputError{Input: in.index, Err: err})
		}
		return false
	}
	in.entry = entry
	in.stats.Entries++
	if !timed {
		in.stats.Untimed++
		at = in.prev
	} else {
		if at < in.prev {
			in.stats.OutOfOrder++
		}
		in.stats.First = min(in.stats.First, at)
		in.stats.Last = max(in.stats.Last, at)
		in.prev = at
	}
	// Only an input's head entry is in the heap, so an input that steps back keeps its own order.
	in.at = at
	return true
}

func (m *Merger) popTop() {
	n := len(m.heap) - 1
	m.heap[0] = m.heap[n]
	m.heap = m.heap[:n]
	if n > 0 {
		m.down(0)
	}
}

func less(a, b *input) bool {
	return a.at < b.at || (a.at == b.at && a.index < b.index)
}

func (m *Merger) down(i int) {
	h := m.heap
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		c := l
		if r := l + 1; r < len(h) && less(h[r], h[l]) {
			c = r
		}
		if !less(h[c], h[i]) {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}
