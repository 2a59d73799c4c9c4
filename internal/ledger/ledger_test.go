package ledger

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEntriesCommitStopsAtTheFirstUnsettled(t *testing.T) {
	for _, tc := range []struct {
		name   string
		settle []int // indexes of the entries settled, in this order
		want   int   // index of the first entry still needed; -1: none
	}{
		{"none settled", nil, 0},
		{"in order", []int{0, 1, 2, 3}, -1},
		{"prefix", []int{0, 1}, 2},
		{"out of order, gap at the front", []int{3, 2, 1}, 0},
		{"out of order, gap in the middle", []int{0, 3, 1}, 2},
		{"out of order, all", []int{2, 0, 3, 1}, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var e Entries
			starts := []int64{0, 10, 25, 40}
			var seqs []Seq
			for i, s := range starts {
				seqs = append(seqs, e.Add(s, int64(i+1)))
			}
			for _, i := range tc.settle {
				e.Settle(seqs[i])
			}
			start, record, ok := e.Oldest()
			if tc.want < 0 {
				assert.False(t, ok)
				assert.True(t, e.Empty())
				return
			}
			require.True(t, ok)
			assert.Equal(t, starts[tc.want], start)
			assert.Equal(t, int64(tc.want+1), record)
			assert.False(t, e.Empty())
		})
	}
}

func TestEntriesSequenceGoesOnAcrossSettlement(t *testing.T) {
	var e Entries
	for i := range 1000 {
		seq := e.Add(int64(i), int64(i+1))
		assert.Equal(t, Seq(i), seq)
		e.Settle(seq)
		assert.True(t, e.Empty())
	}
	// Memory follows what is queued: the array was compacted as entries left.
	assert.LessOrEqual(t, cap(e.entries.q), 8)
}

// A ledger that held many entries at once (a catch-up) gives its array back once they settle.
func TestEntriesGiveBackTheirArrayWhenEmptied(t *testing.T) {
	var e Entries
	var seqs []Seq
	for i := range 1000 {
		seqs = append(seqs, e.Add(int64(i), int64(i+1)))
	}
	for _, s := range seqs {
		e.Settle(s)
	}
	assert.True(t, e.Empty())
	assert.LessOrEqual(t, cap(e.entries.q), keptCap)
}

func TestLinesPopThrough(t *testing.T) {
	var q Lines
	q.Push(Line{Start: 0, End: 10, At: 1})
	q.Push(Line{Start: 11, End: 20, At: 2})
	q.Push(Line{Start: 21, End: 30, At: 3})

	// An entry of the first two lines.
	assert.Equal(t, Line{Start: 0, End: 10, At: 1}, q.PopThrough(20))
	first, ok := q.First()
	require.True(t, ok)
	assert.Equal(t, int64(21), first.Start)

	// A piece of the third line, cut by the joiner before its end: it is that line's, and the
	// line stays held.
	assert.Equal(t, Line{Start: 21, End: 30, At: 3}, q.PopThrough(25))
	first, ok = q.First()
	require.True(t, ok)
	assert.Equal(t, int64(21), first.Start)

	// The rest of it.
	assert.Equal(t, Line{Start: 21, End: 30, At: 3}, q.PopThrough(30))
	_, ok = q.First()
	assert.False(t, ok)

	// With no line held: the last line that left.
	assert.Equal(t, Line{Start: 21, End: 30, At: 3}, q.PopThrough(30))
}

func TestCommit(t *testing.T) {
	for _, tc := range []struct {
		name        string
		setup       func(b *Books)
		wantOffset  int64
		wantRecords int64
	}{
		{"nothing needed: the end of the last line read", func(*Books) {}, 100, 7},
		{"an unsettled entry", func(b *Books) {
			b.Entries.Settle(b.Entries.Add(40, 5))
			b.Entries.Add(60, 6)
		}, 60, 5},
		{"a line still in an open entry", func(b *Books) {
			b.Lines.Push(Line{Start: 80, End: 90})
		}, 80, 7},
		{"an entry before a held line wins", func(b *Books) {
			b.Entries.Add(50, 4)
			b.Lines.Push(Line{Start: 80, End: 90})
		}, 50, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b Books
			tc.setup(&b)
			c := Upto(100, 7)
			c.Need(b.Oldest())
			assert.Equal(t, Commit{Offset: tc.wantOffset, Records: tc.wantRecords}, c)
		})
	}
}

func TestCommitTakesTheOldestOfSeveralStreams(t *testing.T) {
	var stdout, stderr Books
	stdout.Lines.Push(Line{Start: 70, End: 80})
	stderr.Entries.Add(30, 9)
	c := Upto(100, 12)
	c.Need(stdout.Oldest())
	c.Need(stderr.Oldest())
	c.Need(20, 0, false) // a buffer that holds nothing
	assert.Equal(t, Commit{Offset: 30, Records: 8}, c)
	c.Need(10, 0, true) // a split line's pieces from offset 10
	assert.Equal(t, Commit{Offset: 10, Records: 8}, c)
}
