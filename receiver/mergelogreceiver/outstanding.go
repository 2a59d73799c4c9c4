package mergelogreceiver

// outstanding tracks the entries of one file that were read but not yet settled (delivered, or
// given up after a permanent error), in file order. Entries can settle out of file order (the
// merge releases a file that goes back in time out of its own order), so the offset that may be
// committed is the end of the longest settled prefix, never just the end of the latest delivery.
type outstanding struct {
	first int64 // sequence number of q[head]
	head  int
	q     []pendingEnd
}

type pendingEnd struct {
	end     int64
	settled bool
}

// add appends the next entry, which ends at end, and returns its sequence number.
func (o *outstanding) add(end int64) int64 {
	o.q = append(o.q, pendingEnd{end: end})
	return o.first + int64(len(o.q)-o.head) - 1
}

// settle marks entry seq settled.
func (o *outstanding) settle(seq int64) {
	o.q[o.head+int(seq-o.first)].settled = true
}

// advance drops the settled prefix and returns the end offset of its last entry.
func (o *outstanding) advance() (end int64, ok bool) {
	for o.head < len(o.q) && o.q[o.head].settled {
		end, ok = o.q[o.head].end, true
		o.head++
		o.first++
	}
	// Reuse the array once the dropped prefix dominates, so memory follows what is in flight.
	if o.head > 0 && o.head >= len(o.q)/2 {
		n := copy(o.q, o.q[o.head:])
		o.q = o.q[:n]
		o.head = 0
	}
	return end, ok
}

// empty reports whether every entry read has settled.
func (o *outstanding) empty() bool { return o.head == len(o.q) }
