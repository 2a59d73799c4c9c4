package ledger

// Books is what one stream of a file still needs: its entries not settled and its lines not
// yet in an entry.
type Books struct {
	Entries Entries
	Lines   Lines
}

// Oldest returns the start offset of the first byte the stream still needs and, when that is
// an entry's, its record number (else 0); ok is false when it needs nothing.
func (b *Books) Oldest() (start, record int64, ok bool) {
	if start, record, ok = b.Entries.Oldest(); ok {
		return start, record, true
	}
	if l, ok := b.Lines.First(); ok {
		return l.Start, 0, true
	}
	return 0, 0, false
}

// Commit is the offset a file may be committed to and the number of records before it.
type Commit struct {
	Offset, Records int64
}

// Upto starts a file's Commit at the end of the last line read from it, after records records;
// each Need then holds it back to a byte a stream still needs.
func Upto(readEnd, records int64) Commit {
	return Commit{Offset: readEnd, Records: records}
}

// Need holds the commit back to start, the first byte one stream still needs (as Oldest
// returns it, or a stream's own buffer such as the pieces of a split line, with record 0),
// when ok.
func (c *Commit) Need(start, record int64, ok bool) {
	if ok && start < c.Offset {
		c.Offset = start
		if record > 0 {
			c.Records = record - 1
		}
	}
}
