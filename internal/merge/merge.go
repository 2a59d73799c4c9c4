// Package merge merges several inputs, each roughly in time order, into one stream ordered by
// UTC instant: a k-way merge over a tournament tree of losers, O(N log K) for N entries from K
// inputs, with one comparison per level when the winner's input moves on.
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
	"math/bits"
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
	prev  int64 // instant of the previous entry (math.MinInt64 before the first timestamp)
	stats Stats
}

// key orders the inputs' head entries: by instant, then by input index; a done input's key is
// above every entry's. It is one unsigned 128-bit number (hi, lo), so that a comparison needs no
// branch: which of two logs has the earlier head is a coin toss that a predictor loses half the
// time, and the mispredictions were most of the merge's cost.
type key struct{ hi, lo uint64 }

func entryKey(at int64, index int) key { return key{uint64(at) ^ 1<<63, uint64(index)} }

// below is 1 when a < b, else 0.
func (a key) below(b key) uint64 {
	_, borrow := bits.Sub64(a.lo, b.lo, 0)
	_, borrow = bits.Sub64(a.hi, b.hi, borrow)
	return borrow
}

// Merger is the k-way merge. It is not safe for concurrent use.
//
// The tree of losers has the inputs as leaves, leaf i at node K+i, node j's parent at j/2; each
// inner node keeps the input that lost the match played there, and node 0 the overall winner:
// the input whose entry goes out next. When the winner's input moves on, it replays only the
// matches on its own path to the root. A done input sorts after every entry, so it loses them all.
type Merger struct {
	inputs  []*input
	keys    []key         // keys[i] is the key of input i's head entry
	tree    []int         // input indices: tree[0] the winner, tree[1:] the losers of inner nodes
	failed  []*InputError // input failures not yet returned
	started bool
	last    *input // input whose entry was returned last; advanced on the next call
}

// New merges the sources; their indices in the slice break ties.
func New(sources []Source) *Merger {
	m := &Merger{inputs: make([]*input, len(sources)), keys: make([]key, len(sources)), tree: make([]int, max(len(sources), 1))}
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
		if len(m.inputs) == 0 {
			return nil, -1, io.EOF
		}
		for _, in := range m.inputs {
			m.advance(in)
		}
		m.tree[0] = m.play(1)
	case m.last != nil:
		m.advance(m.last)
		m.replay(m.last.index)
		m.last = nil
	}
	if len(m.failed) > 0 {
		e := m.failed[0]
		m.failed = m.failed[1:]
		return nil, e.Input, e
	}
	if m.keys[m.tree[0]].lo >= uint64(len(m.inputs)) { // the best input is done, so all are
		return nil, -1, io.EOF
	}
	top := m.inputs[m.tree[0]]
	m.last = top
	return top.entry, top.index, nil
}

// Stats returns the counters of input i (its index in New's slice).
func (m *Merger) Stats(i int) Stats { return m.inputs[i].stats }

// advance loads the input's next entry; at the end it marks the input done (and queues a failure).
func (m *Merger) advance(in *input) {
	entry, at, timed, err := in.src.Next()
	if err != nil {
		if !errors.Is(err, io.EOF) {
			m.failed = append(m.failed, &InputError{Input: in.index, Err: err})
		}
		in.entry = nil
		m.keys[in.index] = key{math.MaxUint64, uint64(len(m.inputs) + in.index)}
		return
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
	// Only an input's head entry is in the tree, so an input that steps back keeps its own order.
	m.keys[in.index] = entryKey(at, in.index)
}

// play fills the subtree under node (an inner node, or leaf K+i for input i) with its losers and
// returns its winner.
func (m *Merger) play(node int) int {
	k := len(m.inputs)
	if node >= k {
		return node - k
	}
	a, b := m.play(2*node), m.play(2*node+1)
	if m.keys[b].below(m.keys[a]) == 1 {
		a, b = b, a
	}
	m.tree[node] = b
	return a
}

// replay plays the matches from input w's leaf up after its entry changed; w was the winner.
// The winner of each match is selected with a mask, not a branch.
func (m *Merger) replay(w int) {
	tree, keys := m.tree, m.keys
	for node := (len(keys) + w) / 2; node > 0; node /= 2 {
		l := tree[node]
		lWins := -int(keys[l].below(keys[w])) // all ones or zero
		win := w ^ (w^l)&lWins
		tree[node] = w ^ l ^ win // the loser
		w = win
	}
	tree[0] = w
}
