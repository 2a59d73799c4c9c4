package testkit

import (
	"context"
	"maps"
	"slices"
	"sync"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/extension/xextension/storage"
)

// MemStorage is an in-memory storage extension whose clients all share one map, so that a
// component started again with the same MemStorage finds what the last one stored, as with
// file_storage across a restart. It counts the writes; Freeze makes it a process that died
// (writes seem to succeed and store nothing), Fail a storage that refuses them.
type MemStorage struct {
	component.StartFunc
	component.ShutdownFunc
	mu      sync.Mutex
	data    map[string][]byte
	sets    int // Set calls and Set operations stored
	bytes   int // their value bytes
	batches int // Batch calls that ran
	refused int // Batch calls refused (Fail)
	frozen  bool
	fail    error // what Batch returns, storing nothing
}

var (
	_ storage.Extension = (*MemStorage)(nil)
	_ storage.Client    = (*MemStorage)(nil)
)

// NewMemStorage returns an empty MemStorage.
func NewMemStorage() *MemStorage { return &MemStorage{data: map[string][]byte{}} }

func (m *MemStorage) GetClient(context.Context, component.Kind, component.ID, string) (storage.Client, error) {
	return m, nil
}

func (m *MemStorage) Get(_ context.Context, key string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.data[key], nil
}

func (m *MemStorage) Set(_ context.Context, key string, value []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.set(key, value)
	return nil
}

func (m *MemStorage) set(key string, value []byte) {
	if m.frozen {
		return
	}
	m.data[key] = append([]byte(nil), value...)
	m.sets++
	m.bytes += len(value)
}

func (m *MemStorage) Delete(_ context.Context, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.data, key)
	return nil
}

// Batch runs the operations in order under one lock, as one transaction; while Fail holds an
// error, it returns it and runs none.
func (m *MemStorage) Batch(_ context.Context, ops ...*storage.Operation) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail != nil {
		m.refused++
		return m.fail
	}
	m.batches++
	for _, op := range ops {
		switch op.Type {
		case storage.Get:
			op.Value = m.data[op.Key]
		case storage.Set:
			m.set(op.Key, op.Value)
		case storage.Delete:
			delete(m.data, op.Key)
		}
	}
	return nil
}

func (m *MemStorage) Close(context.Context) error { return nil }

// Writes returns how many values were stored, and their bytes.
func (m *MemStorage) Writes() (sets, bytes int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.sets, m.bytes
}

// Batches returns how many Batch calls succeeded, and how many failed.
func (m *MemStorage) Batches() (ok, failed int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.batches, m.refused
}

// Fail makes every later Batch return err and store nothing, as a storage that refuses writes
// (a full disk); Fail(nil) ends it.
func (m *MemStorage) Fail(err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.fail = err
}

// Freeze makes every later write seem to succeed and store nothing, as if the process had died
// before it.
func (m *MemStorage) Freeze() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.frozen = true
}

// Thaw ends Freeze.
func (m *MemStorage) Thaw() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.frozen = false
}

// Value returns what key holds, and whether it holds anything.
func (m *MemStorage) Value(key string) ([]byte, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.data[key]
	return v, ok
}

// Keys returns the keys stored, sorted.
func (m *MemStorage) Keys() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Sorted(maps.Keys(m.data))
}

// HostWith is a host whose only extension is ext, under id.
func HostWith(id component.ID, ext component.Component) component.Host {
	return extensionsHost{Host: componenttest.NewNopHost(), exts: map[component.ID]component.Component{id: ext}}
}

type extensionsHost struct {
	component.Host
	exts map[component.ID]component.Component
}

func (h extensionsHost) GetExtensions() map[component.ID]component.Component { return h.exts }
