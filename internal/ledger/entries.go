package ledger

// Seq numbers the entries of one Entries ledger in the order they were added.
type Seq int64

// Entries is the ledger of one stream's entries that were read but not yet settled, in order.
type Entries struct {
	first   Seq // sequence number of the front entry
	entries fifo[pendingEntry]
}

type pendingEntry struct {
	start   int64 // offset of the entry's first byte
	record  int64 // its record number
	settled bool
}

// Add appends the next entry, which starts at offset start and has record number record, and
// returns its sequence number.
func (e *Entries) Add(start, record int64) Seq {
	e.entries.push(pendingEntry{start: start, record: record})
	return e.first + Seq(e.entries.len()) - 1
}

// Settle marks entry seq settled: accepted downstream or deliberately dropped.
func (e *Entries) Settle(seq Seq) {
	e.entries.at(int(seq - e.first)).settled = true
}

// Oldest returns the start and record number of the first entry not settled; ok is false when
// every entry added has settled.
func (e *Entries) Oldest() (start, record int64, ok bool) {
	for e.entries.len() > 0 && e.entries.at(0).settled {
		e.entries.pop()
		e.first++
	}
	if e.entries.len() == 0 {
		return 0, 0, false
	}
	p := e.entries.at(0)
	return p.start, p.record, true
}

// Empty reports whether every entry added has settled.
func (e *Entries) Empty() bool {
	_, _, ok := e.Oldest()
	return !ok
}
