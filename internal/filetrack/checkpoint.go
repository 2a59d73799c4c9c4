package filetrack

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/mergelog/otelcol-mergelog/internal/filetrack/checkpoint"
)

// Checkpoint encodes the identities with their committed offsets.
func (t *Tracker) Checkpoint() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	ids := make([]checkpoint.Identity, 0, len(t.files))
	for _, f := range t.files {
		ids = append(ids, f.saved())
	}
	slices.SortFunc(ids, func(a, b checkpoint.Identity) int { return cmp.Compare(a.ID, b.ID) })
	return checkpoint.Encode(ids)
}

// Changes is what changed in the checkpoint since the last call of Changes: each identity
// created, restored or committed further since, encoded on its own (checkpoint.Encode of one
// identity), and the identities forgotten since. A caller that keeps one storage key per
// identity writes only these, so a write is proportional to what changed, not to the files
// tracked.
type Changes struct {
	Set  map[uint64][]byte
	Gone []uint64
}

// Changes returns what changed since its last call and starts collecting anew.
func (t *Tracker) Changes() Changes {
	t.mu.Lock()
	defer t.mu.Unlock()
	c := Changes{Set: make(map[uint64][]byte, len(t.changed)), Gone: t.gone}
	for id := range t.changed {
		if f := t.files[id]; f != nil {
			c.Set[id] = checkpoint.Encode([]checkpoint.Identity{f.saved()})
		}
	}
	clear(t.changed)
	t.gone = nil
	return c
}

// saved is f's state as the checkpoint keeps it.
func (f *File) saved() checkpoint.Identity {
	f.mu.Lock()
	cs := make([]checkpoint.Check, len(f.checks))
	for i, c := range f.checks {
		cs[i] = checkpoint.Check{Off: c.off, Sum: c.sum}
	}
	f.mu.Unlock()
	return checkpoint.Identity{
		ID: f.id, Committed: f.committed, Records: f.records, Kind: f.kind,
		Dev: f.key.dev, Ino: f.key.ino, Path: f.path, FP: f.fp, Checks: cs,
	}
}

// Restore loads a Checkpoint from a previous run; it must come before the
// first Poll. Empty data means no previous state. On error nothing is
// loaded.
func (t *Tracker) Restore(data []byte) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.poll > 0 {
		return errors.New("filetrack: Restore after Poll")
	}
	if len(data) == 0 {
		return nil
	}
	ids, err := checkpoint.Decode(data)
	if err != nil {
		return err
	}
	for _, e := range ids {
		if t.files[e.ID] != nil {
			return fmt.Errorf("filetrack: checkpoint: identity %d already known", e.ID)
		}
	}
	for _, e := range ids {
		// A smaller fingerprint size than before: the prefix still identifies.
		fp := e.FP[:min(len(e.FP), t.opts.FingerprintSize)]
		f := &File{
			t: t, id: e.ID, kind: e.Kind, key: fileKey{dev: e.Dev, ino: e.Ino}, path: e.Path, resolved: e.Path,
			fp:     append(make([]byte, 0, t.opts.FingerprintSize), fp...),
			checks: make([]check, 0, maxChecks+1),
			off:    e.Committed, committed: e.Committed, counted: e.Committed, records: e.Records,
			skipped: e.Committed == skippedOffset,
		}
		for _, c := range e.Checks {
			f.checks = append(f.checks, check{off: c.Off, sum: c.Sum})
		}
		f.done = f.skipped
		f.tail.pos = f.off
		t.files[f.id] = f
		t.changed[f.id] = struct{}{} // restored: written again, in whatever layout the caller keeps now
		t.idx.insert(f)
		t.nextID = max(t.nextID, f.id)
	}
	t.resumed = true
	return nil
}
