package stanzachain

import stanza "github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/entry"

// books are the entries inside a holding chain: each source's in the order they went in, and
// each by the stanza entry that went in, which operators pass on.
type books[S comparable, T any] struct {
	bySource map[S]*heldQueue[S, T]
	byEntry  map[*stanza.Entry]*held[S, T]
}

// held is one entry inside a holding chain.
type held[S comparable, T any] struct {
	Input[S, T]
	e   *stanza.Entry
	out bool // it came out
}

// heldQueue is one source's entries that went into a holding chain and may still be inside,
// in the order they went in.
type heldQueue[S comparable, T any] struct {
	q    []*held[S, T]
	head int
}

func newBooks[S comparable, T any]() books[S, T] {
	return books[S, T]{bySource: map[S]*heldQueue[S, T]{}, byEntry: map[*stanza.Entry]*held[S, T]{}}
}

// add books e, which goes in as in.
func (b *books[S, T]) add(e *stanza.Entry, in Input[S, T]) {
	h := b.bySource[in.Source]
	if h == nil {
		h = &heldQueue[S, T]{}
		b.bySource[in.Source] = h
	}
	p := &held[S, T]{Input: in, e: e}
	h.q = append(h.q, p)
	b.byEntry[e] = p
}

// settleThrough takes out the entries in's source sent in up to in, which came out; leave
// settles each of them that did not: dropped, or merged into an entry before them, which holds
// the source's commit until it is delivered.
func (b *books[S, T]) settleThrough(in *held[S, T], leave func(*held[S, T])) {
	h := b.bySource[in.Source]
	for h != nil {
		p := h.front()
		if p == nil {
			break
		}
		b.pop(h, p, leave)
		if p == in {
			break
		}
	}
	b.forget(in.Source, h)
}

// expire takes out the entries that came out or went in before since (Unix nanoseconds),
// each source's up to the first that did neither; leave settles those that did not come out.
func (b *books[S, T]) expire(since int64, leave func(*held[S, T])) {
	for s, h := range b.bySource {
		for p := h.front(); p != nil && (p.out || p.Entered < since); p = h.front() {
			b.pop(h, p, leave)
		}
		b.forget(s, h)
	}
}

// pop takes p, the front of h, out of the books, and has leave settle it if it did not come out.
func (b *books[S, T]) pop(h *heldQueue[S, T], p *held[S, T], leave func(*held[S, T])) {
	h.pop()
	if p.out {
		return
	}
	delete(b.byEntry, p.e)
	leave(p)
}

// forget drops source s's queue h once it is empty.
func (b *books[S, T]) forget(s S, h *heldQueue[S, T]) {
	if h != nil && h.front() == nil {
		delete(b.bySource, s)
	}
}

func (h *heldQueue[S, T]) front() *held[S, T] {
	if h.head == len(h.q) {
		return nil
	}
	return h.q[h.head]
}

func (h *heldQueue[S, T]) pop() {
	h.q[h.head] = nil
	h.head++
	if h.head == len(h.q) || h.head > 1024 && h.head > len(h.q)/2 {
		h.q = append(h.q[:0], h.q[h.head:]...)
		h.head = 0
	}
}
