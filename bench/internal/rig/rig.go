// Package rig starts contrib's file_log receiver and the mergelog receiver the way a collector
// would (config keys unmarshalled into the factory's default config, then validated), with the
// counting consumer and the storage host that the benchmark and the tests share.
package rig

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/open-telemetry/opentelemetry-collector-contrib/extension/storage/filestorage"
	"github.com/open-telemetry/opentelemetry-collector-contrib/receiver/filelogreceiver"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/extension"
	"go.opentelemetry.io/collector/extension/extensiontest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/receivertest"

	"github.com/mergelog/otelcol-mergelog/receiver/mergelogreceiver"
)

// Receiver names one of the two receivers under comparison.
type Receiver struct {
	Name    string
	Factory receiver.Factory
}

// The receivers under comparison, by the names they have in a collector config.
var (
	FileLog  = Receiver{"file_log", filelogreceiver.NewFactory()}
	Mergelog = Receiver{"mergelog", mergelogreceiver.NewFactory()}
)

// config builds the receiver's config from keys as they would appear under its name in a
// collector config: both receivers share the file_log key names, so one map serves both.
func (r Receiver) config(keys map[string]any) (component.Config, error) {
	cfg := r.Factory.CreateDefaultConfig()
	if err := confmap.NewFromStringMap(keys).Unmarshal(cfg); err != nil {
		return nil, fmt.Errorf("%s config: %w", r.Name, err)
	}
	if err := confmap.Validate(cfg); err != nil {
		return nil, fmt.Errorf("%s config: %w", r.Name, err)
	}
	return cfg, nil
}

// Start creates the receiver from keys and starts it on host, delivering to next.
func (r Receiver) Start(ctx context.Context, keys map[string]any, next consumer.Logs, host component.Host) (receiver.Logs, error) {
	cfg, err := r.config(keys)
	if err != nil {
		return nil, err
	}
	set := receivertest.NewNopSettings(r.Factory.Type())
	// NopSettings names each receiver uniquely; a collector's ID is stable across restarts, and
	// storage clients, hence checkpoints, are keyed by it.
	set.ID = component.NewID(r.Factory.Type())
	rcv, err := r.Factory.CreateLogs(ctx, set, cfg, next)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.Name, err)
	}
	if err := rcv.Start(ctx, host); err != nil {
		return nil, fmt.Errorf("%s: start: %w", r.Name, err)
	}
	return rcv, nil
}

// Counter is a consumer that counts records and body bytes and does nothing else, so that
// the receiver's own cost dominates a measurement.
type Counter struct {
	records, bytes atomic.Int64
}

func (c *Counter) Capabilities() consumer.Capabilities { return consumer.Capabilities{} }

func (c *Counter) ConsumeLogs(_ context.Context, ld plog.Logs) error {
	var n int64
	rls := ld.ResourceLogs()
	for i := range rls.Len() {
		sls := rls.At(i).ScopeLogs()
		for j := range sls.Len() {
			lrs := sls.At(j).LogRecords()
			for k := range lrs.Len() {
				n += int64(BodyLen(lrs.At(k).Body()))
			}
		}
	}
	c.bytes.Add(n)
	c.records.Add(int64(ld.LogRecordCount()))
	return nil
}

// Records is the number of log records consumed so far.
func (c *Counter) Records() int64 { return c.records.Load() }

// Bytes is the total body length of the records consumed so far.
func (c *Counter) Bytes() int64 { return c.bytes.Load() }

// BodyLen is the length of a string or bytes body without copying it.
func BodyLen(v pcommon.Value) int {
	if v.Type() == pcommon.ValueTypeBytes {
		return v.Bytes().Len()
	}
	return len(v.Str())
}

// Host is a component.Host that offers the given extensions.
type Host map[component.ID]component.Component

func (h Host) GetExtensions() map[component.ID]component.Component { return h }

// FileStorageID is the ID under which StartFileStorage's extension is meant to be offered.
var FileStorageID = component.MustNewID("file_storage")

// StartFileStorage creates and starts contrib's file_storage extension keeping its files in dir,
// which it creates if needed.
func StartFileStorage(ctx context.Context, dir string) (extension.Extension, error) {
	f := filestorage.NewFactory()
	cfg := f.CreateDefaultConfig().(*filestorage.Config)
	cfg.Directory = dir
	cfg.Compaction.Directory = dir
	cfg.CreateDirectory = true
	ext, err := f.Create(ctx, extensiontest.NewNopSettings(f.Type()), cfg)
	if err != nil {
		return nil, fmt.Errorf("file_storage: %w", err)
	}
	if err := ext.Start(ctx, Host{}); err != nil {
		return nil, fmt.Errorf("file_storage: start: %w", err)
	}
	return ext, nil
}
