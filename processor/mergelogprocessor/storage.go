package mergelogprocessor // import "github.com/mergelog/otelcol-mergelog/processor/mergelogprocessor"

import (
	"context"
	"encoding/binary"
	"fmt"
	"strconv"
	"sync"

	"go.opentelemetry.io/collector/extension/xextension/storage"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.uber.org/zap"
)

// The records in the storage extension: each batch ConsumeLogs took is one key, batchKey and
// its sequence number, written before ConsumeLogs returns and deleted once the next consumer
// accepted all its records. Storage clients cannot list keys, so two more keys bound the
// sequence numbers that may still be stored: nextKey (the next to be given, written with each
// batch) and lowKey (no batch before it is stored, written when the oldest goes).
const (
	batchKey = "batch."
	nextKey  = "batches.next"
	lowKey   = "batches.low"
)

func keyOf(seq uint64) string { return batchKey + strconv.FormatUint(seq, 10) }

// batchStore keeps the batches whose records are held or on their way to the next consumer.
type batchStore struct {
	client storage.Client
	logger *zap.Logger

	mu      sync.Mutex // serialises the writes, so that nextKey and lowKey only move forward
	next    uint64
	low     uint64
	pending map[uint64]int // stored batch → its records the next consumer has not accepted
	order   []uint64       // the stored batches, oldest first (some may be settled already)
	// [unread, unreadEnd) are the last run's batches not read back yet: lowKey must not pass
	// them while the replay goes on, or a crash then would skip them.
	unread, unreadEnd uint64
	marshal           plog.ProtoMarshaler
}

func newBatchStore(client storage.Client, logger *zap.Logger) *batchStore {
	return &batchStore{client: client, logger: logger, next: 1, low: 1, pending: map[uint64]int{}}
}

// restore reads the bounds of what the last run may have stored: the batches [from, to), to
// be read back with load, in order, before anything is appended.
func (s *batchStore) restore(ctx context.Context) (from, to uint64, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	low, err := s.counter(ctx, lowKey)
	if err != nil {
		return 0, 0, err
	}
	next, err := s.counter(ctx, nextKey)
	if err != nil {
		return 0, 0, err
	}
	s.low, s.next = max(low, 1), max(next, 1)
	s.unread, s.unreadEnd = s.low, s.next
	return s.low, s.next, nil
}

// load reads back stored batch seq, if it is still there (false if it was settled), and counts
// it as pending again. The lock is not held while the caller replays it, so that delivery can
// settle meanwhile.
func (s *batchStore) load(ctx context.Context, seq uint64) (plog.Logs, bool, error) {
	data, err := s.client.Get(ctx, keyOf(seq))
	if err != nil {
		return plog.Logs{}, false, fmt.Errorf("storage: reading %q: %w", keyOf(seq), err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.unread = seq + 1
	if data == nil {
		return plog.Logs{}, false, nil // settled
	}
	var unmarshal plog.ProtoUnmarshaler
	ld, err := unmarshal.UnmarshalLogs(data)
	if err != nil {
		// It cannot be replayed; keeping it would only fail every start again.
		s.logger.Error("A stored batch cannot be decoded; it is deleted", zap.String("key", keyOf(seq)), zap.Error(err))
		if err := s.client.Delete(ctx, keyOf(seq)); err != nil {
			return plog.Logs{}, false, fmt.Errorf("storage: deleting %q: %w", keyOf(seq), err)
		}
		return plog.Logs{}, false, nil
	}
	s.pending[seq] = ld.LogRecordCount()
	s.order = append(s.order, seq)
	return ld, true, nil
}

func (s *batchStore) counter(ctx context.Context, key string) (uint64, error) {
	data, err := s.client.Get(ctx, key)
	switch {
	case err != nil:
		return 0, fmt.Errorf("storage: reading %q: %w", key, err)
	case data == nil:
		return 0, nil
	case len(data) != 8:
		return 0, fmt.Errorf("storage: %q holds %d bytes, not a counter", key, len(data))
	}
	return binary.BigEndian.Uint64(data), nil
}

func encodeCounter(n uint64) []byte { return binary.BigEndian.AppendUint64(nil, n) }

// append stores ld and returns its sequence number; the caller holds ld only once it returned
// without error.
func (s *batchStore) append(ctx context.Context, ld plog.Logs) (uint64, error) {
	data, err := s.marshal.MarshalLogs(ld)
	if err != nil {
		return 0, fmt.Errorf("storage: encoding the batch: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	seq := s.next
	if err := s.client.Batch(ctx,
		storage.SetOperation(keyOf(seq), data),
		storage.SetOperation(nextKey, encodeCounter(seq+1)),
	); err != nil {
		return 0, fmt.Errorf("storage: writing the batch: %w", err)
	}
	s.next++
	s.pending[seq] = ld.LogRecordCount()
	s.order = append(s.order, seq)
	return seq, nil
}

// settle counts records of stored batches as accepted, and deletes the batches with none left.
// A failed delete leaves a batch to be replayed (a duplicate), never a loss.
func (s *batchStore) settle(ctx context.Context, runs []storedRun) {
	if len(runs) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var ops []*storage.Operation
	for _, r := range runs {
		s.pending[r.seq] -= r.n
		if s.pending[r.seq] <= 0 {
			delete(s.pending, r.seq)
			ops = append(ops, storage.DeleteOperation(keyOf(r.seq)))
		}
	}
	i := 0
	for i < len(s.order) && s.pending[s.order[i]] == 0 {
		i++
	}
	s.order = s.order[i:]
	low := s.next
	if len(s.order) > 0 {
		low = s.order[0]
	}
	if s.unread < s.unreadEnd {
		low = min(low, s.unread)
	}
	if low != s.low {
		ops = append(ops, storage.SetOperation(lowKey, encodeCounter(low)))
	}
	if len(ops) == 0 {
		return
	}
	if err := s.client.Batch(ctx, ops...); err != nil {
		s.logger.Warn("Removing delivered records from storage failed; a restart sends them again",
			zap.Error(err))
		return
	}
	s.low = low
}

func (s *batchStore) close(ctx context.Context) error {
	return s.client.Close(ctx)
}
