package filetrack

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mergelog/otelcol-mergelog/internal/decompress"
	"github.com/mergelog/otelcol-mergelog/internal/filetrack/checkpoint"
	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

func TestCheckpointRoundTrip(t *testing.T) {
	h := newHarness(t, Options{StartAtBeginning: true})
	header := text(lines("HEADER", 0, 30))
	testkit.WriteFile(t, h.path("a.log"), append(header, text(lines("a", 0, 40))...))
	testkit.WriteFile(t, h.path("b.log.gz"), testkit.Compress(t, testkit.Gzip, text(lines("b", 0, 40))))
	h.rounds(2)
	cp := checkpoint.Encode(h.tr.Checkpoint())
	tr, err := New(Options{Include: []string{h.path("*")}})
	must(t, err)
	defer func() { must(t, tr.Close()) }()
	ids, err := checkpoint.Decode(cp)
	must(t, err)
	must(t, tr.Restore(ids))
	if got := checkpoint.Encode(tr.Checkpoint()); !bytes.Equal(got, cp) {
		t.Fatalf("checkpoint changed by a round trip:\n%x\n%x", cp, got)
	}
	if len(tr.files.byID) != 2 {
		t.Fatalf("restored %d identities, want 2", len(tr.files.byID))
	}
}

// Files resume at their committed offsets, not at what was read.
func TestRestartResumesAtCommitted(t *testing.T) {
	h := newHarness(t, Options{StartAtBeginning: true})
	h.commit = false
	p := h.path("app.log")
	testkit.WriteFile(t, p, text(lines("a", 0, 100)))
	f := h.round()[0]
	h.tr.Commit(f.ID(), int64(len(text(lines("a", 0, 60)))), 60)
	cp := h.tr.Checkpoint()
	testkit.AppendFile(t, p, text(lines("a", 100, 110)))
	h.start(Options{}) // start at the end: restored files still resume
	must(t, h.tr.Restore(cp))
	files := h.round()
	h.expect(lines("a", 60, 110))
	if len(files) != 1 || files[0].Records() != 60 {
		t.Fatalf("restored record count: %d files, want 1 with 60 records", len(files))
	}
}

// Files that appeared while the collector was down are read from their start
// even with start at the end: only the very first run skips what exists.
func TestRestartReadsNewFilesFromStart(t *testing.T) {
	h := newHarness(t, Options{})
	p := h.path("app.log")
	testkit.WriteFile(t, p, text(lines("old", 0, 10)))
	h.round()
	testkit.AppendFile(t, p, text(lines("one", 0, 5)))
	h.round()
	cp := h.tr.Checkpoint()
	testkit.AppendFile(t, p, text(lines("one", 5, 8)))
	must(t, os.Rename(p, p+".1"))
	testkit.WriteFile(t, p, text(lines("two", 0, 4)))
	h.start(Options{})
	must(t, h.tr.Restore(cp))
	h.round()
	h.expect(lines("one", 5, 8), lines("two", 0, 4))
}

// After a restart the compressed file resumes at the committed offset, in
// decompressed bytes.
func TestRotateToCompressedAcrossRestart(t *testing.T) {
	for _, z := range compressors {
		t.Run(z.ext, func(t *testing.T) {
			h := newHarness(t, Options{StartAtBeginning: true})
			p := h.path("app.log")
			testkit.WriteFile(t, p, text(lines("one", 0, 100)))
			h.round()
			// Half of what was read is committed, then the collector stops.
			f := h.tr.files.byID[h.ids("one")[0]]
			half := int64(len(text(lines("one", 0, 50))))
			h.tr.files.byID[f.id].committed = half
			cp := h.tr.Checkpoint()

			testkit.AppendFile(t, p, text(lines("one", 100, 120)))
			must(t, os.Rename(p, p+".1"))
			compress(t, p+".1", z.ext, z.format)
			testkit.WriteFile(t, p, text(lines("two", 0, 5)))

			h.start(Options{StartAtBeginning: true})
			must(t, h.tr.Restore(cp))
			h.rounds(2)
			h.expect(lines("one", 50, 120), lines("two", 0, 5))
			if one := h.ids("one"); len(one) != 1 || one[0] != f.id {
				t.Fatalf("identity after restart %v, want [%d]", one, f.id)
			}
		})
	}
}

// A checkpoint that Encode cannot have produced does not decode, so there is nothing to restore;
// identities that would clash with each other or with those known are refused whole.
func TestRestoreErrors(t *testing.T) {
	tr, err := New(Options{Include: []string{filepath.Join(t.TempDir(), "*")}})
	must(t, err)
	defer func() { must(t, tr.Close()) }()
	good := []checkpoint.Identity{{ID: 1, Committed: 5, Kind: decompress.Plain, FP: []byte("x"), Path: "p"}}
	encoded := checkpoint.Encode(good)
	body := encoded[: len(encoded)-4 : len(encoded)-4]
	for name, b := range map[string][]byte{
		"garbage":         []byte("not a checkpoint at all"),
		"short":           encoded[:4],
		"truncated":       encoded[:len(encoded)-3],
		"bad crc":         append(slices.Clone(body), encoded[len(encoded)-4]^1, 0, 0, 0),
		"trailing bytes":  withCRC(append(slices.Clone(body), 0)),
		"unknown version": withCRC([]byte("MLFT\x03\x00")),
		"zero id":         checkpoint.Encode([]checkpoint.Identity{{ID: 0, Kind: decompress.Plain, FP: []byte("x")}}),
		"empty fp":        checkpoint.Encode([]checkpoint.Identity{{ID: 1, Kind: decompress.Plain}}),
		"auto kind":       checkpoint.Encode([]checkpoint.Identity{{ID: 1, Kind: decompress.Auto, FP: []byte("x")}}),
		"duplicate id": checkpoint.Encode([]checkpoint.Identity{{ID: 1, Kind: decompress.Plain, FP: []byte("x")},
			{ID: 1, Kind: decompress.Plain, FP: []byte("y")}}),
	} {
		_, err := checkpoint.Decode(b)
		if err == nil {
			t.Errorf("%s: decoded", name)
		}
		if name == "unknown version" && !strings.Contains(fmt.Sprint(err), "version 3") {
			t.Errorf("unknown version: %v", err)
		}
	}
	for name, ids := range map[string][]checkpoint.Identity{
		"zero id": {{ID: 0, Kind: decompress.Plain, FP: []byte("x")}},
		"duplicate id": {{ID: 1, Kind: decompress.Plain, FP: []byte("x")},
			{ID: 1, Kind: decompress.Plain, FP: []byte("y")}},
	} {
		if err := tr.Restore(ids); err == nil {
			t.Errorf("%s: Restore succeeded", name)
		}
	}
	if len(tr.files.byID) != 0 {
		t.Fatalf("failed restores left %d identities", len(tr.files.byID))
	}
	must(t, tr.Restore(nil))
	must(t, tr.Restore(good))
	if err := tr.Restore(good); err == nil {
		t.Error("Restore of an identity already known accepted")
	}
	tr.Poll()
	if err := tr.Restore(nil); err == nil {
		t.Error("Restore after Poll accepted")
	}
}

func withCRC(b []byte) []byte {
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)))
}

func FuzzRestore(f *testing.F) {
	f.Add(checkpoint.Encode(nil))
	f.Add(checkpoint.Encode([]checkpoint.Identity{{ID: 3, Committed: skippedOffset, Kind: decompress.Gzip, FP: []byte("fp"), Path: "/a",
		Dev: 1, Ino: 2, Checks: []checkpoint.Check{{Off: 2000, Sum: 7}, {Off: 4000, Sum: 9}}}}))
	f.Add([]byte("MLFT\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		// As is, and with a valid CRC so that the parser behind it is fuzzed.
		for _, d := range [][]byte{data, withCRC(slices.Clone(data))} {
			tr, err := New(Options{Include: []string{"/nonexistent/*"}})
			if err != nil {
				t.Fatal(err)
			}
			if ids, err := checkpoint.Decode(d); err == nil && tr.Restore(ids) == nil {
				// What was accepted encodes back to a checkpoint that decodes.
				if _, err := checkpoint.Decode(checkpoint.Encode(tr.Checkpoint())); err != nil {
					t.Fatalf("re-encoded checkpoint does not decode: %v", err)
				}
			}
			must(t, tr.Close())
		}
	})
}

// Changes names what changed since its last call: identities created or committed further, and
// those forgotten; each as the whole checkpoint has it.
func TestChangesAreWhatMoved(t *testing.T) {
	h := newHarness(t, Options{StartAtBeginning: true})
	for _, name := range []string{"a.log", "b.log", "c.log"} {
		testkit.WriteFile(t, h.path(name), text(lines(name, 0, 5)))
	}
	h.rounds(2)
	c := h.tr.Changes()
	if len(c.Set) != 3 || len(c.Gone) != 0 {
		t.Fatalf("after the first reads: %d set, %d gone; want 3, 0", len(c.Set), len(c.Gone))
	}
	for i, w := range h.tr.Checkpoint() {
		if one := c.Set[i]; one.ID != w.ID || one.Committed != w.Committed || one.Path != w.Path {
			t.Fatalf("identity %d: changed %+v, in the whole checkpoint %+v", w.ID, one, w)
		}
	}
	if c := h.tr.Changes(); len(c.Set)+len(c.Gone) != 0 {
		t.Fatalf("nothing moved, yet %d set and %d gone", len(c.Set), len(c.Gone))
	}

	testkit.AppendFile(t, h.path("b.log"), text(lines("b.log", 5, 6)))
	h.rounds(1)
	b := h.ids("b.log")
	c = h.tr.Changes()
	if len(c.Set) != 1 || c.Set[0].ID != b[0] {
		t.Fatalf("b grew: changes %v, want b's identity %d alone", idsOf(c.Set), b[0])
	}

	must(t, os.Remove(h.path("c.log")))
	gone := h.ids("c.log")
	h.rounds(forgetPolls + 2)
	c = h.tr.Changes()
	if !slices.Equal(c.Gone, gone) || slices.Contains(idsOf(c.Set), gone[0]) {
		t.Fatalf("c removed and forgotten: gone %v, want %v", c.Gone, gone)
	}
}

// A restored checkpoint is written again whole: its identities count as changed.
func TestRestoredIdentitiesAreChanges(t *testing.T) {
	h := newHarness(t, Options{StartAtBeginning: true})
	testkit.WriteFile(t, h.path("a.log"), text(lines("a", 0, 5)))
	h.rounds(2)
	cp := h.tr.Checkpoint()
	tr, err := New(Options{Include: []string{h.path("*")}})
	must(t, err)
	defer func() { must(t, tr.Close()) }()
	must(t, tr.Restore(cp))
	if c := tr.Changes(); len(c.Set) != 1 {
		t.Fatalf("restored one identity: %d changes", len(c.Set))
	}
}

func idsOf(set []checkpoint.Identity) []uint64 {
	var out []uint64
	for _, e := range set {
		out = append(out, e.ID)
	}
	return out
}
