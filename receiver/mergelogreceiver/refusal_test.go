package mergelogreceiver

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/otel/attribute"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

func ofClass(class string) func(attribute.Set) bool {
	return func(s attribute.Set) bool {
		v, ok := s.Value("class")
		return ok && v.AsString() == class
	}
}

func hasBody(ld plog.Logs, body string) bool { return slices.Contains(testkit.BodiesOf(ld), body) }

// A record the next consumer refuses as invalid is dropped alone: counted, logged with its file
// and offset, and checkpointed past, while every other record of its batch arrives once.
func TestDataRefusalDropsOnlyThatRecord(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.log")
	testkit.WriteFile(t, path, numbered(0, 30))
	m := testkit.NewMemStorage()
	cfg, host := withStorage(testConfig(dir), m)
	cfg.Batch.MaxRecords = 10
	s := &testkit.LogsSink{Answer: func(_ context.Context, _ int, ld plog.Logs) error {
		if hasBody(ld, "line 13") {
			return consumererror.NewPermanent(status.Error(codes.InvalidArgument, "record 13 is invalid"))
		}
		return nil
	}}
	tel := componenttestTelemetry(t)
	set := tel.settings()
	core, logs := observer.New(zap.ErrorLevel)
	set.Logger = zap.New(core)
	r := startWith(t, set, cfg, s, host)
	want := slices.Delete(wantLines(0, 30), 13, 14)
	got := s.WaitForBodies(t, 29)
	assertSameLines(t, want, got)
	tel.waitSum(t, "otelcol_receiver_mergelog_records_dropped", 1)
	assert.Equal(t, int64(1), tel.sum("otelcol_receiver_mergelog_records_dropped", ofClass("data")))
	drops := logs.FilterMessageSnippet("dropped").All()
	require.Len(t, drops, 1)
	fields := drops[0].ContextMap()
	assert.Equal(t, path, fields["file"])
	assert.Equal(t, int64(len(numbered(0, 13))), fields["offset"])
	assert.Equal(t, "data", fields["class"])
	require.NoError(t, r.Shutdown(context.Background()))

	// A restart reads nothing again: the dropped record was checkpointed past.
	again := &testkit.LogsSink{}
	startReceiver(t, cfg, again, host)
	testkit.AppendFile(t, path, "after restart\n")
	assert.Equal(t, []string{"after restart"}, again.WaitForBodies(t, 1))
}

// A refusal not about the data (Unauthenticated) holds the batch: nothing is dropped or
// checkpointed until the next consumer accepts, and the hold is logged.
func TestAuthRefusalHoldsWithoutLoss(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "a.log"), numbered(0, 50))
	m := testkit.NewMemStorage()
	cfg, host := withStorage(testConfig(dir), m)
	cfg.Batch.MaxRecords = 10
	const refusals = 6
	s := &testkit.LogsSink{Answer: func(_ context.Context, call int, _ plog.Logs) error {
		if call <= refusals {
			stored, _ := m.Writes()
			assert.Zero(t, stored, "no checkpoint while held")
			return consumererror.NewPermanent(status.Error(codes.Unauthenticated, "token rotated"))
		}
		return nil
	}}
	tel := componenttestTelemetry(t)
	set := tel.settings()
	core, logs := observer.New(zap.WarnLevel)
	set.Logger = zap.New(core)
	startWith(t, set, cfg, s, host)
	assertSameLines(t, wantLines(0, 50), s.WaitForBodies(t, 50))
	assert.Zero(t, tel.sum("otelcol_receiver_mergelog_records_dropped", nil))
	assert.Equal(t, int64(refusals), tel.sum("otelcol_receiver_mergelog_consume_errors", isPermanent(true)))
	held := logs.FilterMessageSnippet("holding").All()
	require.NotEmpty(t, held)
	assert.Contains(t, held[0].ContextMap()["error"], "token rotated")
}

// A batch over a gRPC server's limit is sent again in halves; only a record too large alone is
// dropped, named, and counted as size.
func TestSizeRefusalSplitsTheBatch(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.log")
	lines := wantLines(0, 40)
	lines[22] = "line 22 " + strings.Repeat("x", 5000)
	testkit.WriteFile(t, path, testkit.Text(lines))
	cfg := testConfig(dir)
	cfg.Batch.MaxRecords = 40
	const limit = 2000
	var m plog.ProtoMarshaler
	s := &testkit.LogsSink{Answer: func(_ context.Context, _ int, ld plog.Logs) error {
		if n := m.LogsSize(ld); n > limit {
			return consumererror.NewPermanent(status.Errorf(codes.ResourceExhausted, "grpc: received message larger than max (%d vs. %d)", n, limit))
		}
		return nil
	}}
	tel := componenttestTelemetry(t)
	startWith(t, tel.settings(), cfg, s, nil)
	assertSameLines(t, slices.Delete(slices.Clone(lines), 22, 23), s.WaitForBodies(t, 39))
	tel.waitSum(t, "otelcol_receiver_mergelog_records_dropped", 1)
	assert.Equal(t, int64(1), tel.sum("otelcol_receiver_mergelog_records_dropped", ofClass("size")))
}

// The batch's size bound is never below its encoding, and above it by at most groupSlack per
// resource group: the batches marshalled are measured.
func TestBatchBytesBoundTheEncoding(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	groups := make([]*resourceGroup, 3)
	for i := range groups {
		m := pcommon.NewMap()
		m.PutStr("k8s.pod.name", fmt.Sprintf("pod-%d", i))
		m.PutStr("k8s.namespace.name", strings.Repeat("n", rng.IntN(200)))
		groups[i] = &resourceGroup{attrs: m}
	}
	var marshaler plog.ProtoMarshaler
	for _, rawBody := range []bool{false, true} {
		z := newSizer()
		b := newBatch(16, &z)
		for round := range 20 {
			for range 1 + rng.IntN(300) {
				attrs := pcommon.NewMap()
				attrs.PutStr("log.file.path", "/var/log/pods/x/y/0.log")
				f := &tailedFile{resource: groups[rng.IntN(len(groups))], path: "/var/log/a.log"}
				s := &stream{f: f, attrs: attrSet{m: attrs}}
				size := []int{0, 1, 127, 128, 200, 3 << 10, 10 << 10, 64 << 10, 1 << 20}[rng.IntN(9)]
				e := &entry{s: s, body: strings.Repeat("b", size), at: rng.Int64(), timed: rng.IntN(2) == 0,
					observed: rng.Int64(), record: rng.Int64N(1 << 40), logtag: []string{"", "F", "P"}[rng.IntN(3)]}
				n, _ := b.measure(e, rawBody, round%2 == 0)
				b.add(e, n)
			}
			ld, _ := b.seal(0)
			encoded, err := marshaler.MarshalLogs(ld)
			require.NoError(t, err)
			assert.GreaterOrEqual(t, b.bytes, len(encoded), "never below the encoding")
			assert.LessOrEqual(t, b.bytes, len(encoded)+groupSlack*ld.ResourceLogs().Len())
			b.reset()
		}
	}
}

// Start warns when batch.max_bytes is above what a gRPC server accepts by default, and only then.
func TestStartWarnsAboveTheGRPCDefaultLimit(t *testing.T) {
	for _, maxBytes := range []ByteSize{defaultMaxBytes, grpcDefaultMaxRecv, grpcDefaultMaxRecv + 1} {
		cfg := testConfig(t.TempDir())
		cfg.Batch.MaxBytes = maxBytes
		core, logs := observer.New(zap.WarnLevel)
		set := componenttestTelemetry(t).settings()
		set.Logger = zap.New(core)
		startWith(t, set, cfg, &testkit.CountingSink{}, nil)
		warned := logs.FilterMessageSnippet("batch.max_bytes").Len()
		assert.Equal(t, maxBytes > grpcDefaultMaxRecv, warned == 1, "max_bytes %d: %d warnings", maxBytes, warned)
	}
}
