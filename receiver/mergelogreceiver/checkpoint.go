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
	"github.com/mergelog/otelcol-mergelog/internal/ledger"
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

// checkpoints moves the files' checkpoints as their entries settle: settle marks an entry done
// with in its stream's ledger, and commit moves each file touched since up to the first byte it
// still needs (Tracker.Commit), then stores what the tracker reports changed. Owned by the run
// goroutine.
type checkpoints struct {
	tracker *filetrack.Tracker
	store   *checkpointStore // nil without storage
	touched []*tailedFile    // files with entries settled since the last commit
	unsaved bool             // offsets committed since the last write: only that makes a write
}

// settle marks one entry of s as done with; commit then moves its file's checkpoint over it.
func (c *checkpoints) settle(s *stream, seq ledger.Seq) {
	s.books.Entries.Settle(seq)
	c.touch(s.f)
}

// touch has f's checkpoint moved at the next commit, as far as its ledger allows.
func (c *checkpoints) touch(f *tailedFile) {
	if !f.on.touched {
		f.on.touched = true
		c.touched = append(c.touched, f)
	}
}

// commit moves each touched file's committed offset up to the first byte still needed and
// stores the checkpoint. A failed write is tried again at the next commit, at the latest at
// Shutdown.
func (c *checkpoints) commit(ctx context.Context) {
	for i := 0; i < len(c.touched); i++ { // repay may touch more
		f := c.touched[i]
		f.on.touched = false
		at := f.committable()
		if c.tracker.Commit(f.id, at.Offset, at.Records) {
			c.unsaved = true
		}
		c.repay(f, at.Offset)
	}
	c.touched = c.touched[:0]
	if c.unsaved && c.store != nil {
		c.unsaved = !c.store.write(ctx, c.tracker.Changes())
	}
}

// repay marks repaid the loans of f's streams whose lines f's checkpoint passed (splitwait.go),
// and has their lending files committed again.
func (c *checkpoints) repay(f *tailedFile, committed int64) {
	for _, s := range f.streams {
		if l := s.borrowed; l != nil && l.end > 0 && committed >= l.end {
			l.repaid, s.borrowed = true, nil
			c.touch(l.from)
		}
	}
}

// checkpointStore owns the checkpoint in the storage extension: its keys and their encoding.
type checkpointStore struct {
	client  storage.Client
	logger  *zap.Logger
	counts  *counts         // of the writes, done and failed
	stored  map[uint64]bool // identities that have a key
	legacy  bool            // legacyKey is still there
	reindex bool            // the index could not be decoded: the next write replaces it
	// What the tracker reported changed and is not written yet (a failed write is tried again
	// with the next one), encoded.
	pending map[uint64][]byte
	gone    map[uint64]bool
}

func newCheckpointStore(client storage.Client, logger *zap.Logger, counts *counts) *checkpointStore {
	return &checkpointStore{
		client: client, logger: logger, counts: counts,
		stored: map[uint64]bool{}, pending: map[uint64][]byte{}, gone: map[uint64]bool{},
	}
}

// load hands the stored checkpoint, if any, to restore: the per-identity keys, or the one key
// of an earlier release. A key that cannot be decoded fails it when onCorrupt is fail; with
// start_over the key is logged, left out (its files are files never seen) and deleted by the
// next write, and load returns how many keys it left out.
func (s *checkpointStore) load(ctx context.Context, onCorrupt OnCorruptCheckpoint, restore func([]checkpoint.Identity) error) (discarded int, err error) {
	index, err := s.client.Get(ctx, indexKey)
	if err != nil {
		return 0, fmt.Errorf("storage: reading the checkpoint: %w", err)
	}
	if len(index) == 0 {
		return s.loadLegacy(ctx, onCorrupt, restore)
	}
	ids, err := checkpoint.DecodeIndex(index)
	if err != nil {
		s.reindex = true
		return s.discardIf(err, onCorrupt, indexKey, index)
	}
	all := make([]checkpoint.Identity, 0, len(ids))
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
	if err := restore(all); err != nil {
		return discarded, fmt.Errorf("storage: restoring the checkpoint: %w", err)
	}
	return discarded, nil
}

// loadLegacy hands the checkpoint of an earlier release, if there is one, to restore.
func (s *checkpointStore) loadLegacy(ctx context.Context, onCorrupt OnCorruptCheckpoint, restore func([]checkpoint.Identity) error) (discarded int, err error) {
	data, err := s.client.Get(ctx, legacyKey)
	if err != nil {
		return 0, fmt.Errorf("storage: reading the checkpoint: %w", err)
	}
	if len(data) == 0 {
		return 0, nil
	}
	s.legacy = true // carried over or discarded, it is deleted by the first write
	ids, err := checkpoint.Decode(data)
	if err == nil {
		err = restore(ids)
	}
	return s.discardIf(err, onCorrupt, legacyKey, data)
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

// write stores what changed, with what an earlier write left unwritten: the identities created
// or committed further, the deletion of those forgotten, and the index when the set of
// identities changed. It reports whether nothing is left to write.
func (s *checkpointStore) write(ctx context.Context, changes filetrack.Changes) bool {
	for _, id := range changes.Set {
		s.pending[id.ID] = checkpoint.Encode([]checkpoint.Identity{id})
	}
	for _, id := range changes.Gone {
		delete(s.pending, id)
		s.gone[id] = true
	}
	if len(s.pending) == 0 && len(s.gone) == 0 && !s.legacy && !s.reindex {
		return true
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
		s.counts.checkpointFailed++
		s.logger.Error("Writing the checkpoint failed; the stored offsets stay behind for now",
			zap.Error(err))
		return false
	}
	s.counts.checkpointWrites++
	for id := range s.pending {
		s.stored[id] = true
	}
	for id := range s.gone {
		delete(s.stored, id)
	}
	clear(s.pending)
	clear(s.gone)
	s.legacy, s.reindex = false, false
	return true
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
	if s == nil {
		return
	}
	if err := s.client.Close(ctx); err != nil {
		s.logger.Warn("Closing the storage client failed", zap.Error(err))
	}
}
