package merge

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type fakeEntry struct {
	text  string
	at    int64
	timed bool
}

// sliceSource replays entries, then returns err (io.EOF when nil).
type sliceSource struct {
	entries []fakeEntry
	err     error
	buf     []byte
}

func (s *sliceSource) Next() ([]byte, int64, bool, error) {
	if len(s.entries) == 0 {
		if s.err != nil {
			return nil, 0, false, s.err
		}
		return nil, 0, false, io.EOF
	}
	e := s.entries[0]
	s.entries = s.entries[1:]
	// Reuse one buffer, as real sources do, so the test catches a merger that keeps stale slices.
	s.buf = append(s.buf[:0], e.text...)
	return s.buf, e.at, e.timed, nil
}

func timed(text string, at int64) fakeEntry { return fakeEntry{text, at, true} }
func untimed(text string) fakeEntry         { return fakeEntry{text: text} }

func drain(t *testing.T, m *Merger) (out []string, errs []*InputError) {
	t.Helper()
	for {
		e, _, err := m.Next()
		if errors.Is(err, io.EOF) {
			return out, errs
		}
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("unexpected error %v", err)
			}
			errs = append(errs, ie)
			continue
		}
		out = append(out, string(e))
	}
}

func TestMergeOrderTiesAndUntimed(t *testing.T) {
	a := &sliceSource{entries: []fakeEntry{untimed("a0-head"), timed("a1", 10), timed("a2", 20), untimed("a3-cont"), timed("a4", 30)}}
	b := &sliceSource{entries: []fakeEntry{timed("b1", 5), timed("b2", 20), timed("b3", 25), untimed("b4-cont")}}
	m := New([]Source{a, b})
	got, errs := drain(t, m)
	want := []string{"a0-head", "b1", "a1", "a2", "a3-cont", "b2", "b3", "b4-cont", "a4"}
	if !slices.Equal(got, want) || len(errs) != 0 {
		t.Fatalf("got %q errs %v\nwant %q", got, errs, want)
	}
	if s := m.Stats(0); s.Entries != 5 || s.Untimed != 2 || s.OutOfOrder != 0 || s.First != 10 || s.Last != 30 {
		t.Errorf("stats a = %+v", s)
	}
	if s := m.Stats(1); s.Entries != 4 || s.Untimed != 1 {
		t.Errorf("stats b = %+v", s)
	}
}

func TestMergeBackwardsInputKeepsItsOrder(t *testing.T) {
	a := &sliceSource{entries: []fakeEntry{timed("a1", 10), timed("a2-back", 3), timed("a3", 40)}}
	b := &sliceSource{entries: []fakeEntry{timed("b1", 1), timed("b2", 5), timed("b3", 50)}}
	m := New([]Source{a, b})
	got, _ := drain(t, m)
	want := []string{"b1", "b2", "a1", "a2-back", "a3", "b3"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q want %q", got, want)
	}
	if s := m.Stats(0); s.OutOfOrder != 1 {
		t.Errorf("out of order = %d, want 1", s.OutOfOrder)
	}
}

func TestMergeFailedInputDoesNotStopOthers(t *testing.T) {
	boom := errors.New("gzip: invalid checksum")
	a := &sliceSource{entries: []fakeEntry{timed("a1", 1), timed("a2", 4)}, err: boom}
	b := &sliceSource{entries: []fakeEntry{timed("b1", 2), timed("b2", 3), timed("b3", 9)}}
	c := &sliceSource{err: boom} // fails before its first entry
	got, errs := drain(t, New([]Source{a, b, c}))
	want := []string{"a1", "b1", "b2", "a2", "b3"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q want %q", got, want)
	}
	if len(errs) != 2 || errs[0].Input != 2 || errs[1].Input != 0 || !errors.Is(errs[1], boom) {
		t.Fatalf("errors = %v", errs)
	}
}

func TestMergeEmpty(t *testing.T) {
	if _, _, err := New(nil).Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("no inputs: %v", err)
	}
	if _, _, err := New([]Source{&sliceSource{}, &sliceSource{}}).Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("empty inputs: %v", err)
	}
}

// TestMergeMatchesReference compares the merge with the definition it implements: at every
// step, take the head entry with the smallest (instant, input index), where an untimed entry has
// its input's previous instant.
func TestMergeMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for iter := range 500 {
		k := 1 + r.IntN(17) // tree shapes of 1 to 17 leaves, powers of two or not
		inputs := make([][]fakeEntry, k)
		for i := range inputs {
			at := r.Int64N(100)
			for j := range r.IntN(30) {
				text := fmt.Sprintf("%d:%d", i, j)
				switch r.IntN(10) {
				case 0:
					inputs[i] = append(inputs[i], untimed(text))
				case 1: // steps back
					at -= r.Int64N(20)
					inputs[i] = append(inputs[i], timed(text, at))
				default:
					at += r.Int64N(5) // includes equal instants: ties
					inputs[i] = append(inputs[i], timed(text, at))
				}
			}
		}
		sources := make([]Source, k)
		for i := range inputs {
			sources[i] = &sliceSource{entries: slices.Clone(inputs[i])}
		}
		got, _ := drain(t, New(sources))
		want := referenceMerge(inputs)
		if !slices.Equal(got, want) {
			t.Fatalf("iter %d: inputs %v\ngot  %q\nwant %q", iter, inputs, got, want)
		}
	}
}

func referenceMerge(inputs [][]fakeEntry) []string {
	pos := make([]int, len(inputs))
	prev := make([]int64, len(inputs))
	for i := range prev {
		prev[i] = math.MinInt64
	}
	headAt := func(i int) int64 {
		if e := inputs[i][pos[i]]; e.timed {
			return e.at
		}
		return prev[i]
	}
	var out []string
	for {
		best := -1
		for i := range inputs {
			if pos[i] < len(inputs[i]) && (best < 0 || headAt(i) < headAt(best)) {
				best = i
			}
		}
		if best < 0 {
			return out
		}
		prev[best] = headAt(best)
		out = append(out, inputs[best][pos[best]].text)
		pos[best]++
	}
}

// BenchmarkMerge merges k inputs whose instants interleave either round-robin (every branch
// predictable) or at random, as real logs do.
func BenchmarkMerge(b *testing.B) {
	for _, order := range []string{"roundrobin", "random"} {
		for _, k := range []int{2, 7, 64} {
			b.Run(fmt.Sprintf("order=%s/inputs=%d", order, k), func(b *testing.B) {
				const perInput = 10000
				r := rand.New(rand.NewPCG(1, uint64(k)))
				inputs := make([][]fakeEntry, k)
				for i := range inputs {
					at := int64(0)
					for j := range perInput {
						if order == "random" {
							at += r.Int64N(int64(2 * k))
						} else {
							at = int64(j*k + i)
						}
						inputs[i] = append(inputs[i], timed("x", at))
					}
				}
				sources := make([]Source, k)
				srcs := make([]sliceSource, k)
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					b.StopTimer()
					for i := range srcs {
						srcs[i].entries = inputs[i]
						sources[i] = &srcs[i]
					}
					m := New(sources)
					b.StartTimer()
					for {
						if _, _, err := m.Next(); err != nil {
							break
						}
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*k*perInput), "ns/entry")
			})
		}
	}
}
