package filetrack

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/mergelog/otelcol-mergelog/internal/filetrack/checkpoint"
)

// Checkpoint returns the identities with their committed offsets, by ID.
func (t *Tracker) Checkpoint() []checkpoint.Identity {
	t.mu.Lock()
	defer t.mu.Unlock()
	ids := make([]checkpoint.Identity, 0, len(t.files.byID))
	for _, f := range t.files.byID {
		ids = append(ids, f.saved())
	}
	slices.SortFunc(ids, func(a, b checkpoint.Identity) int { return cmp.Compare(a.ID, b.ID) })
	return ids
}

// Changes is what changed in the checkpoint since the last call of Changes: each identity
// created, restored or committed further since, and the identities forgotten since. A caller
// that keeps one storage key per identity writes only these, so a write is proportional to what
// changed, not to the files tracked.
type Changes struct {
	Set  []checkpoint.Identity // by ID
	Gone []uint64
}

// Changes returns what changed since its last call and starts collecting anew.
func (t *Tracker) Changes() Changes {
	t.mu.Lock()
	defer t.mu.Unlock()
	c := Changes{Set: make([]checkpoint.Identity, 0, len(t.files.changed)), Gone: t.files.gone}
	for id := range t.files.changed {
		if f := t.files.byID[id]; f != nil {
			c.Set = append(c.Set, f.saved())
		}
	}
	slices.SortFunc(c.Set, func(a, b checkpoint.Identity) int { return cmp.Compare(a.ID, b.ID) })
	clear(t.files.changed)
	t.files.gone = nil
	return c
}

// saved is f's state as the checkpoint keeps it.
func (f *File) saved() checkpoint.Identity {
	f.r.checks.mu.Lock()
	cs := make([]checkpoint.Check, len(f.r.checks.list))
	for i, c := range f.r.checks.list {
		cs[i] = checkpoint.Check{Off: c.off, Sum: c.sum}
	}
	f.r.checks.mu.Unlock()
	return checkpoint.Identity{
		ID: f.id, Committed: f.committed, Records: f.records.Load(), Kind: f.r.kind,
		Dev: f.key.dev, Ino: f.key.ino, Path: f.path, FP: f.fp, Checks: cs,
	}
}

// Restore loads the identities of a checkpoint from a previous run (as checkpoint.Decode
// returns them); it must come before the first Poll. Files that appeared while the collector was
// down are then read from their start, even with StartAtBeginning false. On error nothing is
// loaded.
func (t *Tracker) Restore(ids []checkpoint.Identity) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.poll > 0 {
		return errors.New("filetrack: Restore after Poll")
	}
	seen := make(map[uint64]bool, len(ids))
	for _, e := range ids {
		if e.ID == 0 || seen[e.ID] || t.files.byID[e.ID] != nil {
			return fmt.Errorf("filetrack: checkpoint: identity %d is zero, repeated or already known", e.ID)
		}
		seen[e.ID] = true
	}
	for _, e := range ids {
		// A smaller fingerprint size than before: the prefix still identifies.
		fp := e.FP[:min(len(e.FP), t.opts.FingerprintSize)]
		f := newFile(&t.read, e.ID, fp, fileKey{dev: e.Dev, ino: e.Ino})
		f.path, f.resolved, f.skipped = e.Path, e.Path, e.Committed == skippedOffset
		f.r.kind, f.r.off, f.r.counted, f.committed = e.Kind, e.Committed, e.Committed, e.Committed
		f.records.Store(e.Records)
		for _, c := range e.Checks {
			f.r.checks.list = append(f.r.checks.list, check{off: c.Off, sum: c.Sum})
		}
		f.r.done = f.skipped
		f.r.tail.pos = f.r.off
		t.files.add(f) // restored, so changed: written again, in whatever layout the caller keeps now
		t.files.nextID = max(t.files.nextID, f.id)
	}
	t.resumed = true
	return nil
}
