package filetrack

import (
	"testing"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

func TestNewValidates(t *testing.T) {
	for name, o := range map[string]Options{
		"no include":      {},
		"bad glob":        {Include: []string{"[x"}},
		"fingerprint":     {Include: []string{"*"}, FingerprintSize: 8},
		"max files":       {Include: []string{"*"}, MaxConcurrentFiles: -1},
		"negative age":    {Include: []string{"*"}, ExcludeOlderThan: -1},
		"bad compression": {Include: []string{"*"}, Compression: 42},
	} {
		if _, err := New(o); err == nil {
			t.Errorf("%s: New accepted %+v", name, o)
		}
	}
}

// Commit, Checkpoint and Stats come from other goroutines while files are
// polled and read; run with -race.
func TestConcurrentCommit(t *testing.T) {
	h := newHarness(t, Options{StartAtBeginning: true})
	h.commit = false
	p := h.path("app.log")
	done := make(chan struct{})
	ends := make(chan [2]int64, 1024)
	go func() {
		defer close(done)
		for e := range ends {
			h.tr.Commit(uint64(e[0]), e[1], 0)
			h.tr.Checkpoint()
			h.tr.Stats()
		}
	}()
	for i := range 20 {
		testkit.AppendFile(t, p, text(lines("c", i*50, i*50+50)))
		for _, f := range h.tr.Poll() {
			for {
				_, end, err := f.Next()
				if err != nil {
					break
				}
				ends <- [2]int64{int64(f.ID()), end}
			}
		}
	}
	close(ends)
	<-done
	es := h.tr.Checkpoint()
	if len(es) != 1 || es[0].Committed != int64(len(readFile(t, p))) {
		t.Fatalf("checkpoint %+v, want everything committed", es)
	}
}
