package mergelogreceiver

import (
	"context"
	"fmt"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/extension/xextension/storage"
	"go.uber.org/zap"

	"github.com/mergelog/otelcol-mergelog/internal/filetrack"
)

// checkpointKey is the one storage key holding the tracker's checkpoint: a single Set is one
// transaction in file_storage, so a crash leaves the previous checkpoint or the new one.
const checkpointKey = "checkpoint"

// checkpointStore writes the tracker's checkpoint to the storage extension, if one is set.
type checkpointStore struct {
	client  storage.Client // nil without storage
	unsaved bool           // offsets committed since the checkpoint was last written
	logger  *zap.Logger
}

func storageClient(ctx context.Context, host component.Host, id, self component.ID) (storage.Client, error) {
	ext, ok := host.GetExtensions()[id]
	if !ok {
		return nil, fmt.Errorf("storage: extension %q not found", id)
	}
	se, ok := ext.(storage.Extension)
	if !ok {
		return nil, fmt.Errorf("storage: extension %q is not a storage extension", id)
	}
	client, err := se.GetClient(ctx, component.KindReceiver, self, "")
	if err != nil {
		return nil, fmt.Errorf("storage: extension %q: %w", id, err)
	}
	return client, nil
}

// restore gives the tracker the stored checkpoint, if any.
func restore(ctx context.Context, client storage.Client, tracker *filetrack.Tracker) error {
	data, err := client.Get(ctx, checkpointKey)
	if err != nil {
		return fmt.Errorf("storage: reading the checkpoint: %w", err)
	}
	if len(data) == 0 {
		return nil
	}
	if err := tracker.Restore(data); err != nil {
		return fmt.Errorf("storage: restoring the checkpoint (key %q): %w", checkpointKey, err)
	}
	return nil
}

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

func (s *checkpointStore) write(ctx context.Context, tracker *filetrack.Tracker) {
	if !s.unsaved || s.client == nil {
		return
	}
	if err := s.client.Set(ctx, checkpointKey, tracker.Checkpoint()); err != nil {
		s.logger.Error("Writing the checkpoint failed; the stored offsets stay behind for now",
			zap.Error(err))
		return
	}
	s.unsaved = false
}

func (s *checkpointStore) close(ctx context.Context) {
	if s.client == nil {
		return
	}
	if err := s.client.Close(ctx); err != nil {
		s.logger.Warn("Closing the storage client failed", zap.Error(err))
	}
}
