package filetrack

import (
	"os"
	"testing"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

func TestMaxConcurrentFiles(t *testing.T) {
	const n, limit = 12, 3
	h := newHarness(t, Options{StartAtBeginning: true, MaxConcurrentFiles: limit})
	h.tr.fds.open = func(name string) (*os.File, error) {
		if h.tr.fds.n >= limit { // Poll holds the lock while it opens
			t.Errorf("opening %s with %d descriptors open", name, h.tr.fds.n)
		}
		return os.Open(name)
	}
	var want [][]string
	for i := range n {
		tag := string(rune('a' + i))
		testkit.WriteFile(t, h.path(tag+".log"), text(lines(tag, 0, 10)))
		want = append(want, lines(tag, 0, 10))
	}
	for round := range 3 * n / limit {
		if round%2 == 0 { // the files keep growing while they wait their turn
			for i := range n {
				tag := string(rune('a' + i))
				testkit.AppendFile(t, h.path(tag+".log"), text(lines(tag, 10+round, 11+round)))
				want = append(want, lines(tag, 10+round, 11+round))
			}
		}
		h.round()
		if fds, open := openFDs(t, h.dir), h.tr.Stats().FilesOpen; fds > limit || open > limit {
			t.Fatalf("round %d: %d descriptors open (tracker counts %d), limit %d", round, fds, open, limit)
		}
	}
	h.rounds(n / limit)
	h.expect(want...)
}

// A file closed for want of descriptors and rewritten meanwhile is checked
// by fingerprint when reopened.
func TestReopenVerifies(t *testing.T) {
	h := newHarness(t, Options{StartAtBeginning: true, MaxConcurrentFiles: 1})
	a, b := h.path("a.log"), h.path("b.log")
	testkit.WriteFile(t, a, text(lines("a", 0, 10)))
	testkit.WriteFile(t, b, text(lines("b", 0, 10)))
	h.rounds(2) // one file per round
	h.expect(lines("a", 0, 10), lines("b", 0, 10))
	testkit.AppendFile(t, b, text(lines("b", 10, 12)))
	h.round() // b takes the descriptor from a
	testkit.WriteFile(t, a, text(lines("x", 0, 30)))
	h.rounds(3)
	h.expect(lines("a", 0, 10), lines("b", 0, 12), lines("x", 0, 30))
}
