package mergewindow

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// push pushes an entry; the tables give its fields in this order.
func push[T any](w *Window[T], in *Input[T], at int64, timed bool, arrived int64, v T) {
	w.Push(in, Entry[T]{Value: v, At: at, Timed: timed, Arrived: arrived})
}

type released struct {
	v       string
	heldFor int64
}

func collect[T any](out *[]released) func(T, int64) bool {
	return func(v T, h int64) bool {
		*out = append(*out, released{fmt.Sprint(v), h})
		return true
	}
}

func names(rs []released) []string {
	s := make([]string, len(rs))
	for i, r := range rs {
		s[i] = r.v
	}
	return s
}

func TestWindowHoldsUntilEveryInputReachesTheInstant(t *testing.T) {
	w := New[string](1000)
	a, b := w.AddInput(), w.AddInput()
	var out []released
	push(w, a, 10, true, 0, "a10")
	push(w, a, 30, true, 0, "a30")
	w.Release(0, collect[string](&out))
	if len(out) != 0 {
		t.Fatalf("released %v before b showed anything", names(out))
	}
	push(w, b, 20, true, 1, "b20")
	w.Release(1, collect[string](&out))
	if got := names(out); !slices.Equal(got, []string{"a10", "b20"}) {
		t.Fatalf("got %v, want a10 b20 (a30 waits for b to reach 30)", got)
	}
	push(w, b, 40, true, 2, "b40")
	w.Release(2, collect[string](&out))
	if got := names(out); !slices.Equal(got, []string{"a10", "b20", "a30"}) {
		t.Fatalf("got %v", got)
	}
	if w.Len() != 1 || b.Held() != 1 || a.Held() != 0 {
		t.Fatalf("held: len %d a %d b %d", w.Len(), a.Held(), b.Held())
	}
}

// A release its caller stopped leaves what was due for the next one, even where the window,
// by then, would not let it out (the arrivals that made it due are spent).
func TestWindowStoppedReleaseOwesTheRest(t *testing.T) {
	w := New[string](10)
	a, _ := w.AddInput(), w.AddInput() // the second shows nothing: only the hold releases
	for i, v := range []string{"a1", "a2", "a3"} {
		push(w, a, int64(i+1), true, 0, v)
	}
	var out []released
	take := 1
	emit := func(v string, h int64) bool {
		out = append(out, released{v, h})
		take--
		return take > 0
	}
	w.Release(10, emit)
	if got := names(out); !slices.Equal(got, []string{"a1"}) {
		t.Fatalf("got %v, want a1 (the caller stopped after one)", got)
	}
	take = 10
	w.Release(11, emit)
	if got := names(out); !slices.Equal(got, []string{"a1", "a2", "a3"}) {
		t.Fatalf("got %v, want a1 a2 a3: the stopped release owed a2 and a3", got)
	}
	push(w, a, 4, true, 11, "a4")
	w.Release(12, emit)
	if got := names(out); len(got) != 3 {
		t.Fatalf("got %v: a4 is not due (the debt was paid)", got)
	}
}

func TestWindowQuietInputDelaysAtMostTheWindow(t *testing.T) {
	w := New[string](1000)
	a, _ := w.AddInput(), w.AddInput() // the second input never writes
	var out []released
	push(w, a, 10, true, 0, "a10")
	push(w, a, 20, true, 500, "a20")
	w.Release(999, collect[string](&out))
	if len(out) != 0 {
		t.Fatalf("released %v before the window passed", names(out))
	}
	w.Release(1000, collect[string](&out))
	if got := names(out); !slices.Equal(got, []string{"a10"}) || out[0].heldFor != 1000 {
		t.Fatalf("at the window: got %v", out)
	}
	w.Release(1500, collect[string](&out))
	if got := names(out); !slices.Equal(got, []string{"a10", "a20"}) || out[1].heldFor != 1000 {
		t.Fatalf("got %v", out)
	}
}

func TestWindowTimeoutReleasesEarlierInstantsFirst(t *testing.T) {
	w := New[string](1000)
	a, b, _ := w.AddInput(), w.AddInput(), w.AddInput() // the third input stays quiet
	var out []released
	push(w, a, 50, true, 0, "a50")   // arrives first, times out first
	push(w, b, 20, true, 900, "b20") // earlier instant, arrived later
	w.Release(1000, collect[string](&out))
	if got := names(out); !slices.Equal(got, []string{"b20", "a50"}) {
		t.Fatalf("got %v, want b20 before a50 (order kept when a timeout releases)", got)
	}
}

func TestWindowLateStarterAndBackwardsInput(t *testing.T) {
	w := New[string](1000)
	a := w.AddInput()
	var out []released
	push(w, a, 10, true, 0, "a10")
	push(w, a, 20, true, 0, "a20")
	w.Release(0, collect[string](&out)) // a is the only input: both go out
	b := w.AddInput()                   // starts late, with an older instant
	push(w, b, 15, true, 1, "b15")
	push(w, a, 30, true, 1, "a30")
	w.Release(1, collect[string](&out))
	if got := names(out); !slices.Equal(got, []string{"a10", "a20", "b15"}) || w.Late() != 1 {
		t.Fatalf("got %v late %d; want b15 released at once and counted late", got, w.Late())
	}
	// b goes backwards: the entry is still released, never lost.
	push(w, b, 5, true, 2, "b5")
	push(w, b, 40, true, 2, "b40")
	w.Release(2, collect[string](&out))
	if got := names(out); !slices.Equal(got, []string{"a10", "a20", "b15", "b5", "a30"}) || w.Late() != 2 {
		t.Fatalf("got %v late %d", got, w.Late())
	}
	w.Flush(3, collect[string](&out))
	if got := names(out); got[len(got)-1] != "b40" || w.Len() != 0 {
		t.Fatalf("flush: %v", got)
	}
}

func TestWindowUntimedFollowsItsPredecessor(t *testing.T) {
	w := New[string](1000)
	a, b := w.AddInput(), w.AddInput()
	var out []released
	push(w, a, 0, false, 0, "a-head") // before any timestamp: as early as possible
	push(w, a, 10, true, 0, "a10")
	push(w, a, 0, false, 0, "a10-cont")
	push(w, b, 10, true, 0, "b10")
	push(w, a, 20, true, 0, "a20")
	push(w, b, 20, true, 0, "b20")
	w.Release(0, collect[string](&out))
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
		w := New[int64](1 << 62) // timeouts never fire
		type src struct {
			in  *Input[int64]
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
		emit := func(v int64, _ int64) bool {
			got = append(got, v)
			return true
		}
		for done := 0; done < k; {
			done = 0
			for _, s := range srcs {
				n := min(len(s.ats), 1+r.IntN(5))
				for _, at := range s.ats[:n] {
					push(w, s.in, at, true, 0, at)
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
	w := New[int](1 << 62)
	ins := []*Input[int]{w.AddInput(), w.AddInput(), w.AddInput(), w.AddInput()}
	emit := func(int, int64) bool { return true }
	b.ReportAllocs()
	for i := range b.N {
		push(w, ins[i&3], int64(i), true, 0, i)
		if i&63 == 63 {
			w.Release(0, emit)
		}
	}
}

// refWindow is the window's specification, held entries in a plain list: a release picks the
// least (instant, arrival) entry while it is due. An arrival raises the limit once, when it has
// been waiting for the window, whether or not its entry is still held.
type refWindow struct {
	hold, frontier, late int64
	inputs               []*refInput
	held                 []refEntry
	arrivals             []refEntry
	seq                  int
}

type refInput struct {
	latest, prev   int64
	seen, finished bool
}

type refEntry struct {
	at, arrived int64
	seq, v      int
}

func (w *refWindow) push(in *refInput, at int64, timed bool, now int64, v int) {
	if !timed {
		at = in.prev
	}
	in.prev = at
	if !in.seen || at > in.latest {
		in.latest, in.seen = at, true
	}
	w.seq++
	w.held = append(w.held, refEntry{at, now, w.seq, v})
	w.arrivals = append(w.arrivals, refEntry{at, now, w.seq, v})
}

func (w *refWindow) release(now int64, flush bool) (out []released) {
	limit := int64(math.MaxInt64)
	for _, in := range w.inputs {
		if in.finished {
			continue
		}
		if !in.seen {
			limit = math.MinInt64
			break
		}
		limit = min(limit, in.latest)
	}
	for len(w.arrivals) > 0 && now-w.arrivals[0].arrived >= w.hold {
		limit = max(limit, w.arrivals[0].at)
		w.arrivals = w.arrivals[1:]
	}
	for len(w.held) > 0 {
		i := 0
		for j, e := range w.held {
			if e.at < w.held[i].at || e.at == w.held[i].at && e.seq < w.held[i].seq {
				i = j
			}
		}
		e := w.held[i]
		if !flush && e.at > limit && e.at >= w.frontier {
			break
		}
		if e.at < w.frontier {
			w.late++
		}
		w.frontier = max(w.frontier, e.at)
		w.held = slices.Delete(w.held, i, i+1)
		out = append(out, released{fmt.Sprint(e.v), now - e.arrived})
	}
	return out
}

// TestWindowMatchesSpecification drives the window and refWindow alike with inputs that start
// late, stay quiet, go backwards, lack timestamps and finish, and compares what they release.
func TestWindowMatchesSpecification(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for iter := range 300 {
		hold := 1 + r.Int64N(50)
		w := New[int](time.Duration(hold))
		ref := &refWindow{hold: hold, frontier: math.MinInt64}
		var ins []*Input[int]
		var out []released
		now, v := int64(0), 0
		for range 200 {
			switch op := r.IntN(10); {
			case op == 0 || len(ins) == 0:
				ins = append(ins, w.AddInput())
				ref.inputs = append(ref.inputs, &refInput{latest: math.MinInt64, prev: math.MinInt64})
			case op == 1:
				i := r.IntN(len(ins))
				if !ins[i].finished {
					w.Finish(ins[i])
					ref.inputs[i].finished = true
				}
			case op == 2:
				now += r.Int64N(hold)
				w.Release(now, collect[int](&out))
				if want := ref.release(now, false); !slices.Equal(out, want) {
					t.Fatalf("iter %d: released %v, want %v", iter, out, want)
				}
				out = out[:0]
			default:
				i := r.IntN(len(ins))
				if ins[i].finished {
					continue
				}
				at := ref.inputs[i].prev + r.Int64N(20) - 4 // mostly forwards
				if !ref.inputs[i].seen {
					at = r.Int64N(100)
				}
				timed := r.IntN(8) != 0
				v++
				push(w, ins[i], at, timed, now, v)
				ref.push(ref.inputs[i], at, timed, now, v)
			}
			if w.Len() != len(ref.held) {
				t.Fatalf("iter %d: holds %d, want %d", iter, w.Len(), len(ref.held))
			}
		}
		w.Flush(now, collect[int](&out))
		if want := ref.release(now, true); !slices.Equal(out, want) || w.Late() != ref.late {
			t.Fatalf("iter %d: flushed %v (late %d), want %v (late %d)", iter, out, w.Late(), want, ref.late)
		}
	}
}

// Reserve makes room once: a batch pushed after it does not move the input's queue, also when
// the queue had emptied, and what comes out is as without it.
func TestWindowReserve(t *testing.T) {
	w := New[int](1000)
	a, b := w.AddInput(), w.AddInput()
	var out []released
	for round := range 3 {
		w.Reserve(a, 100)
		queue := &a.queue[:1][0]
		for i := range 100 {
			push(w, a, int64(100*round+i), true, 0, 100*round+i)
		}
		if &a.queue[0] != queue || cap(a.queue) < 100 {
			t.Fatalf("round %d: the queue moved while pushing what was reserved", round)
		}
		push(w, b, int64(100*round+99), true, 0, -1)
		w.Release(0, collect[int](&out))
		if a.Held() != 0 || len(out) != 101*(round+1) {
			t.Fatalf("round %d: released %d, a holds %d", round, len(out), a.Held())
		}
	}
	for i := range 3 {
		if got := out[101*i+100].v; got != "-1" {
			t.Fatalf("round %d: b's entry came out at its turn as %s", i, got)
		}
	}
}
