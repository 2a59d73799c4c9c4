package filetrack

import (
	"errors"
	"io/fs"
	"os"
	"testing"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

func TestForget(t *testing.T) {
	h := newHarness(t, Options{StartAtBeginning: true})
	p := h.path("gone.log")
	testkit.WriteFile(t, p, text(lines("g", 0, 5)))
	f := h.round()[0]
	must(t, os.Remove(p))
	finished := 0
	for range forgetPolls + 3 {
		for _, g := range h.round() {
			if g == f && g.Finished() {
				finished++
			}
		}
	}
	if finished != 1 {
		t.Fatalf("finished reported %d times, want once", finished)
	}
	if n := len(h.tr.files.byID); n != 0 {
		t.Fatalf("%d identities kept after their files are gone", n)
	}
	es := h.tr.Checkpoint()
	if len(es) != 0 {
		t.Fatalf("checkpoint keeps %d identities", len(es))
	}
}

func TestDeleteAfterRead(t *testing.T) {
	h := newHarness(t, Options{StartAtBeginning: true, DeleteAfterRead: true})
	h.commit = false
	p, z := h.path("plain.log"), h.path("packed.log.gz")
	testkit.WriteFile(t, p, text(lines("p", 0, 5)))
	testkit.WriteFile(t, z, testkit.Compress(t, testkit.Gzip, text(lines("z", 0, 5))))
	h.round()
	h.round()
	for _, path := range []string{p, z} {
		if _, err := os.Stat(path); err != nil {
			t.Fatalf("%s deleted before its data was committed: %v", path, err)
		}
	}
	for id, end := range h.ends {
		h.tr.Commit(id, end, 0)
	}
	h.round()
	for _, path := range []string{p, z} {
		if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("%s not deleted after being read and committed: %v", path, err)
		}
	}
	h.expect(lines("p", 0, 5), lines("z", 0, 5))
}
