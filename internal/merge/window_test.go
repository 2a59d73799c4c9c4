package merge

import (
	"math/rand/v2"
	"slices"
	"testing"
)

type released struct {
	v       string
	heldFor int64
}

func collect(out *[]released) func(string, int64) {
	return func(v string, h int64) { *out = append(*out, released{v, h}) }
}

func names(rs []released) []string {
	s := make([]string, len(rs))
	for i, r := range rs {
		s[i] = r.v
	}
	return s
}

func TestWindowHoldsUntilEveryInputReachesTheInstant(t *testing.T) {
	w := NewWindow[string](1000)
	a, b := w.AddInput(), w.AddInput()
	var out []released
	w.Push(a, 10, true, 0, "a10")
	w.Push(a, 30, true, 0, "a30")
	w.Release(0, collect(&out))
	if len(out) != 0 {
		t.Fatalf("released %v before b showed anything", names(out))
	}
	w.Push(b, 20, true, 1, "b20")
	w.Release(1, collect(&out))
	if got := names(out); !slices.Equal(got, []string{"a10", "b20"}) {
		t.Fatalf("got %v, want a10 b20 (a30 waits for b to reach 30)", got)
	}
	w.Push(b, 40, true, 2, "b40")
	w.Release(2, collect(&out))
	if got := names(out); !slices.Equal(got, []string{"a10", "b20", "a30"}) {
		t.Fatalf("got %v", got)
	}
	if w.Len() != 1 || b.Held() != 1 || a.Held() != 0 {
		t.Fatalf("held: len %d a %d b %d", w.Len(), a.Held(), b.Held())
	}
}

func TestWindowQuietInputDelaysAtMostTheWindow(t *testing.T) {
	w := NewWindow[string](1000)
	a, _ := w.AddInput(), w.AddInput() // the second input never writes
	var out []released
	w.Push(a, 10, true, 0, "a10")
	w.Push(a, 20, true, 500, "a20")
	w.Release(999, collect(&out))
	if len(out) != 0 {
		t.Fatalf("released %v before the window passed", names(out))
	}
	w.Release(1000, collect(&out))
	if got := names(out); !slices.Equal(got, []string{"a10"}) || out[0].heldFor != 1000 {
		t.Fatalf("at the window: got %v", out)
	}
	w.Release(1500, collect(&out))
	if got := names(out); !slices.Equal(got, []string{"a10", "a20"}) || out[1].heldFor != 1000 {
		t.Fatalf("got %v", out)
	}
}

func TestWindowTimeoutReleasesEarlierInstantsFirst(t *testing.T) {
	w := NewWindow[string](1000)
	a, b, _ := w.AddInput(), w.AddInput(), w.AddInput() // the third input stays quiet
	var out []released
	w.Push(a, 50, true, 0, "a50")   // arrives first, times out first
	w.Push(b, 20, true, 900, "b20") // earlier instant, arrived later
	w.Release(1000, collect(&out))
	if got := names(out); !slices.Equal(got, []string{"b20", "a50"}) {
		t.Fatalf("got %v, want b20 before a50 (order kept when a timeout releases)", got)
	}
}

func TestWindowLateStarterAndBackwardsInput(t *testing.T) {
	w := NewWindow[string](1000)
	a := w.AddInput()
	var out []released
	w.Push(a, 10, true, 0, "a10")
	w.Push(a, 20, true, 0, "a20")
	w.Release(0, collect(&out)) // a is the only input: both go out
	b := w.AddInput()           // starts late, with an older instant
	w.Push(b, 15, true, 1, "b15")
	w.Push(a, 30, true, 1, "a30")
	w.Release(1, collect(&out))
	if got := names(out); !slices.Equal(got, []string{"a10", "a20", "b15"}) || w.Late() != 1 {
		t.Fatalf("got %v late %d; want b15 released at once and counted late", got, w.Late())
	}
	// b goes backwards: the entry is still released, never lost.
	w.Push(b, 5, true, 2, "b5")
	w.Push(b, 40, true, 2, "b40")
	w.Release(2, collect(&out))
	if got := names(out); !slices.Equal(got, []string{"a10", "a20", "b15", "b5", "a30"}) || w.Late() != 2 {
		t.Fatalf("got %v late %d", got, w.Late())
	}
	w.Flush(3, collect(&out))
	if got := names(out); got[len(got)-1] != "b40" || w.Len() != 0 {
		t.Fatalf("flush: %v", got)
	}
}

func TestWindowUntimedFollowsItsPredecessor(t *testing.T) {
	w := NewWindow[string](1000)
	a, b := w.AddInput(), w.AddInput()
	var out []released
	w.Push(a, 0, false, 0, "a-head") // before any timestamp: as early as possible
	w.Push(a, 10, true, 0, "a10")
	w.Push(a, 0, false, 0, "a10-cont")
	w.Push(b, 10, true, 0, "b10")
	w.Push(a, 20, true, 0, "a20")
	w.Push(b, 20, true, 0, "b20")
	w.Release(0, collect(&out))
	want := []string{"a-head", "a10", "a10-cont", "b10", "a20", "b20"}
	if got := names(out); !slices.Equal(got, want) {
		t.Fatalf("got %v want %v", got, want)
	}
}

// TestWindowFinishedInputsMergeExactly feeds several finished inputs in chunks, round robin,
// and checks the output equals a full sort: finished files merge exactly.
func TestWindowFinishedInputsMergeExactly(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for iter := range 200 {
		k := 1 + r.IntN(6)
		w := NewWindow[int64](1 << 62) // timeouts never fire
		type src struct {
			in  *Input
			ats []int64
		}
		srcs := make([]*src, k)
		var all []int64
		for i := range srcs {
			at := r.Int64N(50)
			s := &src{in: w.AddInput()}
			for range r.IntN(40) {
				at += r.Int64N(4)
				s.ats = append(s.ats, at)
				all = append(all, at)
			}
			srcs[i] = s
		}
		var got []int64
		emit := func(v int64, _ int64) { got = append(got, v) }
		for done := 0; done < k; {
			done = 0
			for _, s := range srcs {
				n := min(len(s.ats), 1+r.IntN(5))
				for _, at := range s.ats[:n] {
					w.Push(s.in, at, true, 0, at)
				}
				s.ats = s.ats[n:]
				if len(s.ats) == 0 {
					if !s.in.finished {
						w.Finish(s.in)
					}
					done++
				}
				w.Release(0, emit)
			}
		}
		slices.Sort(all)
		if !slices.Equal(got, all) || w.Late() != 0 {
			t.Fatalf("iter %d: got %v\nwant %v (late %d)", iter, got, all, w.Late())
		}
	}
}

func BenchmarkWindow(b *testing.B) {
	w := NewWindow[int](1 << 62)
	ins := []*Input{w.AddInput(), w.AddInput(), w.AddInput(), w.AddInput()}
	emit := func(int, int64) {}
	b.ReportAllocs()
	for i := range b.N {
		w.Push(ins[i&3], int64(i), true, 0, i)
		if i&63 == 63 {
			w.Release(0, emit)
		}
	}
}
