package container

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

type emitted struct {
	log            string
	start, end, at int64
}

type piece struct {
	log        string
	start, end int64
	at         int64
	more       bool
}

func TestReassembler(t *testing.T) {
	for _, tc := range []struct {
		name     string
		max      int
		truncate bool
		pieces   []piece
		want     []emitted
		pending  bool
	}{
		{
			name:   "whole lines pass through",
			max:    100,
			pieces: []piece{{"a", 0, 2, 1, false}, {"b", 2, 4, 2, false}},
			want:   []emitted{{"a", 0, 2, 1}, {"b", 2, 4, 2}},
		},
		{
			name:   "pieces joined, time and start of the first, end of the last",
			max:    100,
			pieces: []piece{{"ab", 0, 3, 1, true}, {"cd", 3, 6, 2, true}, {"e", 6, 8, 3, false}},
			want:   []emitted{{"abcde", 0, 8, 1}},
		},
		{
			name:    "an open line waits",
			max:     100,
			pieces:  []piece{{"ab", 0, 3, 1, true}},
			pending: true,
		},
		{
			name:   "split beyond max: the pieces so far become a line",
			max:    4,
			pieces: []piece{{"abc", 0, 4, 1, true}, {"def", 4, 8, 2, true}, {"g", 8, 10, 3, false}},
			want:   []emitted{{"abc", 0, 4, 1}, {"defg", 4, 10, 2}},
		},
		{
			name:     "truncate beyond max: the rest of the line is dropped",
			max:      4,
			truncate: true,
			pieces:   []piece{{"abc", 0, 4, 1, true}, {"def", 4, 8, 2, true}, {"g", 8, 10, 3, false}},
			want:     []emitted{{"abcd", 0, 10, 1}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []emitted
			r := NewReassembler(tc.max, tc.truncate, func(log []byte, start, end, at int64) {
				got = append(got, emitted{string(log), start, end, at})
			})
			for _, p := range tc.pieces {
				r.Add([]byte(p.log), p.start, p.end, p.at, p.more)
			}
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.pending, r.Pending())
			start, record, ok := r.Oldest()
			assert.Equal(t, tc.pending, ok)
			assert.Zero(t, record)
			if ok {
				assert.Equal(t, tc.pieces[0].start, start)
				r.Flush()
				assert.Len(t, got, len(tc.want)+1)
				assert.False(t, r.Pending())
			}
		})
	}
}

// A stream that once joined a long line gives its buffer back: idle, it holds a few KiB
// whatever it joined before (issue 12: 200 streams that each joined 800 KiB held 175 MiB).
func TestReassemblerGivesBackLongLines(t *testing.T) {
	const streams, pieces, pieceLen = 200, 50, 16 << 10
	piece := bytes.Repeat([]byte("x"), pieceLen)
	before := testkit.LiveHeap()
	rs := make([]*Reassembler, streams)
	var emitted int
	for i := range rs {
		rs[i] = NewReassembler(1<<20, false, func(log []byte, _, _, _ int64) { emitted += len(log) })
		for p := range pieces {
			rs[i].Add(piece, int64(p*pieceLen), int64((p+1)*pieceLen), 1, p < pieces-1)
		}
	}
	require.Equal(t, streams*pieces*pieceLen, emitted)
	after := testkit.LiveHeap()
	grown := int64(after) - int64(before)
	t.Logf("%d idle streams after a line of %d KiB each: %d KiB of heap", streams, pieces*pieceLen>>10, grown>>10)
	assert.LessOrEqual(t, grown, int64(streams*(8<<10)), "idle streams hold more than 8 KiB each")
	runtime.KeepAlive(rs)
}

// The pieces of a line at the end of one file, continued in the next file of the stream: the
// line comes out once, whole, with the runtime's time of its first piece and its offsets in
// the second file; the first file's Reassembler is left empty, holding back nothing.
func TestReassemblerTakeOver(t *testing.T) {
	for _, tc := range []struct {
		name  string
		max   int
		first []piece // in the rotated file
		next  []piece // in the new file
		want  []emitted
	}{
		{
			name:  "the rest in the next file",
			max:   100,
			first: []piece{{"ab", 10, 13, 1, true}, {"cd", 13, 16, 2, true}},
			next:  []piece{{"ef", 0, 3, 3, false}, {"g", 3, 5, 4, false}},
			want:  []emitted{{"abcdef", 0, 3, 1}, {"g", 3, 5, 4}},
		},
		{
			name:  "more pieces in the next file",
			max:   100,
			first: []piece{{"ab", 10, 13, 1, true}},
			next:  []piece{{"cd", 0, 3, 2, true}, {"e", 3, 5, 3, false}},
			want:  []emitted{{"abcde", 0, 5, 1}},
		},
		{
			name:  "beyond max: the carried pieces are a line of their own, before the next file's first",
			max:   4,
			first: []piece{{"abc", 10, 14, 1, true}},
			next:  []piece{{"def", 0, 4, 2, false}},
			want:  []emitted{{"abc", 0, 0, 1}, {"def", 0, 4, 2}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var fromGot, got []emitted
			from := NewReassembler(tc.max, false, func(log []byte, start, end, at int64) {
				fromGot = append(fromGot, emitted{string(log), start, end, at})
			})
			to := NewReassembler(tc.max, false, func(log []byte, start, end, at int64) {
				got = append(got, emitted{string(log), start, end, at})
			})
			for _, p := range tc.first {
				from.Add([]byte(p.log), p.start, p.end, p.at, p.more)
			}
			to.TakeOver(from)
			assert.False(t, from.Pending())
			_, _, ok := from.Oldest()
			assert.False(t, ok, "the first file holds nothing back")
			_, _, ok = to.Oldest()
			assert.False(t, ok, "nothing of the line in the second file yet")
			for _, p := range tc.next {
				to.Add([]byte(p.log), p.start, p.end, p.at, p.more)
			}
			from.Flush()
			assert.Empty(t, fromGot)
			assert.Equal(t, tc.want, got)
			assert.False(t, to.Pending())
		})
	}
}
