package ledger

// Line is a line given to an entry builder (a multiline joiner): where it is in the file, and a
// time that came with it (a container runtime's), which the entry it ends up in takes.
type Line struct {
	Start, End, At int64
}

// Lines is the ledger of one stream's lines given to its joiner and not yet in an emitted
// entry, in order: the joiner emits them in order, so they leave from the front.
type Lines struct {
	fifo[Line]
	last Line // the last line that left
}

// Push records a line given to the joiner.
func (q *Lines) Push(l Line) { q.push(l) }

// First returns the oldest line held.
func (q *Lines) First() (Line, bool) {
	if q.len() == 0 {
		return Line{}, false
	}
	return *q.at(0), true
}

// PopThrough takes out the lines of an entry that ends at end (those ending at or before it)
// and returns the first of them. An entry that ends inside the first line held is a piece of
// that line, cut before its end by the joiner: the line stays held (so that no commit passes
// it before its rest is emitted) and is returned. With no line held, the last line that left
// is returned.
func (q *Lines) PopThrough(end int64) Line {
	first, ok := q.First()
	if !ok {
		return q.last
	}
	if first.End > end {
		return first
	}
	for q.len() > 0 && q.at(0).End <= end {
		q.last = *q.at(0)
		q.pop()
	}
	return first
}
