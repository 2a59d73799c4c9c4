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
	reindex bool            // the index could not be decoded: the next write replaces it
	unsaved bool            // offsets committed since the last write: only that makes a write
	// What the tracker reported changed and is not written yet (a failed write is tried again
	// with the next one).
	pending map[uint64][]byte
	gone    map[uint64]bool
}

// restore gives the tracker the stored checkpoint, if any: the per-identity keys, or the
// one key of an earlier release. A key that cannot be decoded fails it when onCorrupt is fail;
// with start_over the key is logged, left out (its files are files never seen) and deleted by
// the next write, and restore returns how many keys it left out.
func (s *checkpointStore) restore(ctx context.Context, tracker *filetrack.Tracker, onCorrupt OnCorruptCheckpoint) (discarded int, err error) {
	s.stored, s.pending, s.gone = map[uint64]bool{}, map[uint64][]byte{}, map[uint64]bool{}
	index, err := s.client.Get(ctx, indexKey)
	if err != nil {
		return 0, fmt.Errorf("storage: reading the checkpoint: %w", err)
	}
	if len(index) == 0 {
		data, err := s.client.Get(ctx, legacyKey)
		if err != nil {
			return 0, fmt.Errorf("storage: reading the checkpoint: %w", err)
		}
		if len(data) == 0 {
			return 0, nil
		}
		s.legacy = true // carried over or discarded, it is deleted by the first write
		return s.discardIf(tracker.Restore(data), onCorrupt, legacyKey, data)
	}
	ids, err := checkpoint.DecodeIndex(index)
	if err != nil {
		s.reindex = true
		return s.discardIf(err, onCorrupt, indexKey, index)
	}
	var all []checkpoint.Identity
	for _, id := range ids {
		data, err := s.client.Get(ctx, keyOf(id))
		if err != nil {
			return discarded, fmt.Errorf("storage: reading the checkpoint: %w", err)
		}
		one, err := checkpoint.Decode(data)
		s.stored[id] = true
		if err != nil || len(one) != 1 || one[0].ID != id {
			n, err := s.discardIf(errors.Join(err, errNotOne), onCorrupt, keyOf(id), data)
			if err != nil {
				return discarded, err
			}
			s.gone[id] = true
			discarded += n
			continue
		}
		all = append(all, one[0])
	}
	if err := tracker.Restore(checkpoint.Encode(all)); err != nil {
		return discarded, fmt.Errorf("storage: restoring the checkpoint: %w", err)
	}
	return discarded, nil
}

// discardIf handles a checkpoint key that could not be decoded (err not nil): an error for
// fail, a warning naming the key and its size for start_over (1 key discarded).
func (s *checkpointStore) discardIf(err error, onCorrupt OnCorruptCheckpoint, key string, data []byte) (int, error) {
	if err == nil {
		return 0, nil
	}
	if onCorrupt == CorruptCheckpointFail {
		return 0, fmt.Errorf("storage: restoring the checkpoint (key %q): %w", key, err)
	}
	s.logger.Warn("A checkpoint key could not be decoded; the files it described are read as files never seen (on_corrupt_checkpoint: start_over)",
		zap.String("key", key), zap.Int("bytes", len(data)), zap.Error(err))
	return 1, nil
}

var errNotOne = errors.New("not the one identity its key names")

// commit moves each touched file's committed offset up to the first byte still needed and
// writes the checkpoint. A failed write is tried again at the next commit, at the latest at
// Shutdown.
func (d *delivery) commit(ctx context.Context, tracker *filetrack.Tracker) {
	for i := 0; i < len(d.touched); i++ { // repay may touch more
		f := d.touched[i]
		f.touched = false
		c := f.committable()
		if tracker.Commit(f.id, c.Offset, c.Records) {
			d.store.unsaved = true
		}
		d.repay(f, c.Offset)
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
	if len(s.pending) == 0 && len(s.gone) == 0 && !s.legacy && !s.reindex {
		return
	}
	ops := make([]*storage.Operation, 0, len(s.pending)+len(s.gone)+2)
	reindex := s.legacy || s.reindex
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
	s.legacy, s.reindex, s.unsaved = false, false, false
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
