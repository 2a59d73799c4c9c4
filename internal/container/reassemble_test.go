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
