package mergelogreceiver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pipeline"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/receivertest"

	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/operator"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/operator/transformer/noop"

	"github.com/mergelog/otelcol-mergelog/internal/refusal"
	"github.com/mergelog/otelcol-mergelog/receiver/mergelogreceiver/internal/metadata"
)

func TestFactory(t *testing.T) {
	f := NewFactory()
	assert.Equal(t, "mergelog", f.Type().String())
	assert.Equal(t, component.StabilityLevelAlpha, f.LogsStability())
	require.NoError(t, componenttest.CheckConfigStruct(f.CreateDefaultConfig()))
}

func TestLifecycle(t *testing.T) {
	cfg := testConfig(t.TempDir())
	ctx := context.Background()
	set := receivertest.NewNopSettings(metadata.Type)

	// Shut down without being started.
	r, err := NewFactory().CreateLogs(ctx, set, cfg, consumertest.NewNop())
	require.NoError(t, err)
	require.NoError(t, r.Shutdown(ctx))

	// Start and shut down, twice in a row on new instances; Shutdown may be repeated.
	for range 2 {
		r, err := NewFactory().CreateLogs(ctx, set, cfg, consumertest.NewNop())
		require.NoError(t, err)
		require.NoError(t, r.Start(ctx, componenttest.NewNopHost()))
		require.NoError(t, r.Shutdown(ctx))
		require.NoError(t, r.Shutdown(ctx))
	}
}

func TestStartFailsWithoutTheStorageExtension(t *testing.T) {
	cfg := testConfig(t.TempDir())
	id := component.MustNewIDWithName("file_storage", "missing")
	cfg.StorageID = &id
	r, err := NewFactory().CreateLogs(context.Background(), receivertest.NewNopSettings(metadata.Type), cfg, consumertest.NewNop())
	require.NoError(t, err)
	err = r.Start(context.Background(), componenttest.NewNopHost())
	require.ErrorContains(t, err, `storage: extension "file_storage/missing" not found`)
	require.NoError(t, r.Shutdown(context.Background()))
}

// startFailsConfig builds a noop operator whose Start fails.
type startFailsConfig struct{ noop.Config }

func (c *startFailsConfig) Build(set component.TelemetrySettings) (operator.Operator, error) {
	op, err := c.Config.Build(set)
	return startFails{op}, err
}

type startFails struct{ operator.Operator }

func (startFails) Start(operator.Persister) error { return errors.New("cannot start") }

// An operator that cannot start fails Start, and Shutdown returns: nothing was left running.
func TestStartFailsWhenAnOperatorCannotStart(t *testing.T) {
	cfg := testConfig(t.TempDir())
	cfg.Operators = []operator.Config{operator.NewConfig(&startFailsConfig{*noop.NewConfig()})}
	r, err := NewFactory().CreateLogs(context.Background(), receivertest.NewNopSettings(metadata.Type), cfg, consumertest.NewNop())
	require.NoError(t, err)
	require.ErrorContains(t, r.Start(context.Background(), componenttest.NewNopHost()), "cannot start")
	require.NoError(t, r.Shutdown(context.Background()))
}

// TestConsumeContract runs the collector's contract check: every generated record is accepted
// or dropped (permanent error) exactly once, under random retryable and permanent errors. The
// contract takes a permanent error for a drop: on_refusal drops on every class here (by
// default a refusal not about the data is held instead, and its records accepted later).
func TestConsumeContract(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig(dir)
	cfg.OnRefusal = refusal.Policy{Size: refusal.Drop, Auth: refusal.Drop, Data: refusal.Drop, Other: refusal.Drop}
	cfg.Include = []string{filepath.Join(dir, "*", "*.log")}
	cfg.Batch.MaxRecords = 16
	receivertest.CheckConsumeContract(receivertest.CheckConsumeContractParams{
		T:             t,
		Factory:       idFactory(),
		Signal:        pipeline.SignalLogs,
		Config:        cfg,
		Generator:     &lineGenerator{t: t, dir: dir},
		GenerateCount: 300,
	})
}

// idFactory wraps the receiver's next consumer so that each record carries its body as the
// contract checker's unique id attribute.
func idFactory() receiver.Factory {
	return receiver.NewFactory(metadata.Type, createDefaultConfig, receiver.WithLogs(
		func(ctx context.Context, set receiver.Settings, cfg component.Config, next consumer.Logs) (receiver.Logs, error) {
			wrapped, err := consumer.NewLogs(func(ctx context.Context, ld plog.Logs) error {
				for _, rl := range ld.ResourceLogs().All() {
					for _, sl := range rl.ScopeLogs().All() {
						for _, lr := range sl.LogRecords().All() {
							lr.Attributes().PutStr(receivertest.UniqueIDAttrName, lr.Body().Str())
						}
					}
				}
				return next.ConsumeLogs(ctx, ld)
			}, consumer.WithCapabilities(consumer.Capabilities{MutatesData: true}))
			if err != nil {
				return nil, err
			}
			return createLogs(ctx, set, cfg, wrapped)
		}, metadata.LogsStability))
}

// lineGenerator writes one uniquely numbered line per Generate, spread over three files in a
// directory of its own per scenario.
type lineGenerator struct {
	t     *testing.T
	dir   string
	mu    sync.Mutex
	sub   string
	files []*os.File
	n     int
	runs  int
}

func (g *lineGenerator) Start() {
	g.runs++
	g.sub = filepath.Join(g.dir, fmt.Sprint(g.runs))
	require.NoError(g.t, os.Mkdir(g.sub, 0o700))
	g.files = nil
	for i := range 3 {
		f, err := os.OpenFile(filepath.Join(g.sub, fmt.Sprintf("f%d.log", i)), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		require.NoError(g.t, err)
		g.files = append(g.files, f)
	}
}

// Stop removes the scenario's files (the receiver is shut down by then), so that the next
// scenario's receiver does not read them.
func (g *lineGenerator) Stop() {
	for _, f := range g.files {
		require.NoError(g.t, f.Close())
	}
	require.NoError(g.t, os.RemoveAll(g.sub))
}

func (g *lineGenerator) Generate() []receivertest.UniqueIDAttrVal {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.n++
	id := fmt.Sprintf("run%d-record%d", g.runs, g.n)
	_, err := g.files[g.n%len(g.files)].WriteString(id + "\n")
	require.NoError(g.t, err)
	return []receivertest.UniqueIDAttrVal{receivertest.UniqueIDAttrVal(id)}
}
