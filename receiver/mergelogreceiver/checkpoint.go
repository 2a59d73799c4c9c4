package mergelogreceiver

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"go.opentelemetry.io/collector/extension/xextension/storage"
	"go.uber.org/zap"

	"github.com/mergelog/otelcol-mergelog/internal/filetrack"
	"github.com/mergelog/otelcol-mergelog/internal/filetrack/checkpoint"
)

// The checkpoint in the storage extension: one key per identity (its offset, record count,
// fingerprint, check points) and an index of those keys, written together in one Batch (one
// transaction in file_storage), so that a write is proportional to the files whose offsets
// moved, not to the files tracked. Releases before this one kept the whole checkpoint in the
// one key legacyKey: it is read once, carried over, and deleted by the first write.
const (
	legacyKey   = "checkpoint"
	indexKey    = "checkpoint.index"
	identityKey = "checkpoint.id."
)

func keyOf(id uint64) string { return identityKey + strconv.FormatUint(id, 10) }

// checkpointStore writes the tracker's checkpoint to the storage extension, if one is set.
type checkpointStore struct {
	client  storage.Client // nil without storage
	logger  *zap.Logger
	stored  map[uint64]bool // identities that have a key
	legacy  bool            // legacyKey is still there
	unsaved bool            // offsets committed since the last write: only that makes a write
	// What the tracker reported changed and is not written yet (a failed write is tried again
	// with the next one).
	pending map[uint64][]byte
	gone    map[uint64]bool
}

// restore gives the tracker the stored checkpoint, if any: the per-identity keys, or the
// one key of an earlier release.
func (s *checkpointStore) restore(ctx context.Context, tracker *filetrack.Tracker) error {
	s.stored, s.pending, s.gone = map[uint64]bool{}, map[uint64][]byte{}, map[uint64]bool{}
	index, err := s.client.Get(ctx, indexKey)
	if err != nil {
		return fmt.Errorf("storage: reading the checkpoint: %w", err)
	}
	if len(index) == 0 {
		data, err := s.client.Get(ctx, legacyKey)
		if err != nil {
			return fmt.Errorf("storage: reading the checkpoint: %w", err)
		}
		if len(data) == 0 {
			return nil
		}
		if err := tracker.Restore(data); err != nil {
			return fmt.Errorf("storage: restoring the checkpoint (key %q): %w", legacyKey, err)
		}
		s.legacy = true
		return nil
	}
	ids, err := checkpoint.DecodeIndex(index)
	if err != nil {
		return fmt.Errorf("storage: restoring the checkpoint (key %q): %w", indexKey, err)
	}
	var all []checkpoint.Identity
	for _, id := range ids {
		data, err := s.client.Get(ctx, keyOf(id))
		if err != nil {
			return fmt.Errorf("storage: reading the checkpoint: %w", err)
		}
		one, err := checkpoint.Decode(data)
		if err != nil || len(one) != 1 || one[0].ID != id {
			return fmt.Errorf("storage: restoring the checkpoint (key %q): %w", keyOf(id), errors.Join(err, errNotOne))
		}
		all = append(all, one[0])
		s.stored[id] = true
	}
	if err := tracker.Restore(checkpoint.Encode(all)); err != nil {
		return fmt.Errorf("storage: restoring the checkpoint: %w", err)
	}
	return nil
}

var errNotOne = errors.New("not the one identity its key names")

// commit moves each touched file's committed offset up to the first byte still needed and
// writes the checkpoint. A failed write is tried again at the next commit, at the latest at
// Shutdown.
func (d *delivery) commit(ctx context.Context, tracker *filetrack.Tracker) {
	for _, f := range d.touched {
		f.touched = false
		if c := f.committable(); tracker.Commit(f.id, c.Offset, c.Records) {
			d.store.unsaved = true
		}
	}
	d.touched = d.touched[:0]
	d.store.write(ctx, tracker)
}

// write stores, once offsets were committed, what changed since the last write: the identities
// created or committed further, the deletion of those forgotten, and the index when the set of
// identities changed.
func (s *checkpointStore) write(ctx context.Context, tracker *filetrack.Tracker) {
	if s.client == nil || !s.unsaved {
		return
	}
	changes := tracker.Changes()
	for id, data := range changes.Set {
		s.pending[id] = data
	}
	for _, id := range changes.Gone {
		delete(s.pending, id)
		s.gone[id] = true
	}
	if len(s.pending) == 0 && len(s.gone) == 0 && !s.legacy {
		return
	}
	ops := make([]*storage.Operation, 0, len(s.pending)+len(s.gone)+2)
	reindex := s.legacy
	for id, data := range s.pending {
		ops = append(ops, storage.SetOperation(keyOf(id), data))
		reindex = reindex || !s.stored[id]
	}
	for id := range s.gone {
		if s.stored[id] {
			ops = append(ops, storage.DeleteOperation(keyOf(id)))
			reindex = true
		}
	}
	if reindex {
		ops = append(ops, storage.SetOperation(indexKey, checkpoint.EncodeIndex(s.indexAfter())))
	}
	if s.legacy {
		ops = append(ops, storage.DeleteOperation(legacyKey))
	}
	if err := s.client.Batch(ctx, ops...); err != nil {
		s.logger.Error("Writing the checkpoint failed; the stored offsets stay behind for now",
			zap.Error(err))
		return
	}
	for id := range s.pending {
		s.stored[id] = true
	}
	for id := range s.gone {
		delete(s.stored, id)
	}
	clear(s.pending)
	clear(s.gone)
	s.legacy, s.unsaved = false, false
}

// indexAfter lists the identities that have a key once the pending write is done, in order.
func (s *checkpointStore) indexAfter() []uint64 {
	ids := make([]uint64, 0, len(s.stored)+len(s.pending))
	for id := range s.stored {
		if !s.gone[id] {
			ids = append(ids, id)
		}
	}
	for id := range s.pending {
		if !s.stored[id] {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

func (s *checkpointStore) close(ctx context.Context) {
	if s.client == nil {
		return
	}
	if err := s.client.Close(ctx); err != nil {
		s.logger.Warn("Closing the storage client failed", zap.Error(err))
	}
}
