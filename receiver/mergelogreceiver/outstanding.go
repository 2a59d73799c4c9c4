package mergelogreceiver

// outstanding tracks the entries of one stream that were read but not yet settled (delivered, or
// given up after a permanent error), in order. Entries can settle out of order (the merge
// releases a file that goes back in time out of its own order), so what may be committed ends
// at the first entry not settled, never just at the latest delivery.
type outstanding struct {
	first   int64 // sequence number of the front entry
	entries fifo[pendingEntry]
}

type pendingEntry struct {
	start   int64 // offset of the entry's first byte
	record  int64 // its record number
	settled bool
}

// add appends the next entry, which starts at start and has record number record, and returns
// its sequence number.
func (o *outstanding) add(start, record int64) int64 {
	o.entries.push(pendingEntry{start: start, record: record})
	return o.first + int64(o.entries.len()) - 1
}

// settle marks entry seq settled.
func (o *outstanding) settle(seq int64) {
	o.entries.at(int(seq - o.first)).settled = true
}

// advance drops the settled prefix.
func (o *outstanding) advance() {
	for o.entries.len() > 0 && o.entries.at(0).settled {
		o.entries.pop()
		o.first++
	}
}

// oldest returns the start and record number of the first entry not settled (call advance first).
func (o *outstanding) oldest() (start, record int64, ok bool) {
	if o.entries.len() == 0 {
		return 0, 0, false
	}
	e := o.entries.at(0)
	return e.start, e.record, true
}

// empty reports whether every entry read has settled.
func (o *outstanding) empty() bool { return o.entries.len() == 0 }
