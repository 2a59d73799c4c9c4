package container

import (
	"testing"

	"github.com/stretchr/testify/assert"
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
