package refusal

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.uber.org/goleak"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// counter is an Observer that keeps its counts.
type counter struct {
	mu       sync.Mutex
	refused  map[Class]int
	dropped  map[Class]int
	retrying int
}

func newCounter() *counter { return &counter{refused: map[Class]int{}, dropped: map[Class]int{}} }

func (c *counter) Refused(_ context.Context, cl Class) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.refused[cl]++
}

func (c *counter) Retrying(context.Context) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.retrying++
}

func (c *counter) Dropped(_ context.Context, n int, cl Class) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dropped[cl] += n
}

// batchOf makes n records "r0".."r<n-1>", the first half under one resource, the rest under
// another, each with its index as log.file.record_number.
func batchOf(n int) plog.Logs {
	ld := plog.NewLogs()
	var recs plog.LogRecordSlice
	for i := range n {
		if i == 0 || i == n/2 {
			rl := ld.ResourceLogs().AppendEmpty()
			rl.Resource().Attributes().PutInt("half", int64(min(i, 1)))
			sl := rl.ScopeLogs().AppendEmpty()
			sl.Scope().SetName("test")
			recs = sl.LogRecords()
		}
		r := recs.AppendEmpty()
		r.Body().SetStr(fmt.Sprintf("r%d", i))
		r.Attributes().PutInt("log.file.record_number", int64(i))
	}
	return ld
}

func hasBody(ld plog.Logs, body string) bool { return slices.Contains(testkit.BodiesOf(ld), body) }

func newSender(policy Policy, sink *testkit.LogsSink, obs *counter, logger *zap.Logger) *Sender {
	return &Sender{
		Policy: &policy, Backoff: Backoff{Initial: time.Millisecond, Max: 5 * time.Millisecond},
		Consume: sink.ConsumeLogs, Observer: obs, Logger: logger,
	}
}

// named records which indexes a Namer was asked for.
type named struct{ at []int }

func (n *named) name(at int) []zap.Field {
	n.at = append(n.at, at)
	return []zap.Field{zap.Int("at", at)}
}

func sortedBodies(sink *testkit.LogsSink) []string {
	b := sink.Bodies()
	slices.Sort(b)
	return b
}

func want(n int, except ...int) []string {
	var out []string
	for i := range n {
		if !slices.Contains(except, i) {
			out = append(out, fmt.Sprintf("r%d", i))
		}
	}
	slices.Sort(out)
	return out
}

func TestDataRefusalDropsOnlyTheRecordsRefused(t *testing.T) {
	sink := &testkit.LogsSink{Answer: func(_ context.Context, _ int, ld plog.Logs) error {
		if hasBody(ld, "r3") || hasBody(ld, "r12") {
			return consumererror.NewPermanent(status.Error(codes.InvalidArgument, "bad record"))
		}
		return nil
	}}
	obs := newCounter()
	core, logs := observer.New(zapcore.ErrorLevel)
	var n named
	require.NoError(t, newSender(DefaultPolicy(), sink, obs, zap.New(core)).Deliver(context.Background(), batchOf(16), false, n.name))
	assert.Equal(t, want(16, 3, 12), sortedBodies(sink), "each other record accepted once")
	assert.Equal(t, map[Class]int{Data: 2}, obs.dropped)
	slices.Sort(n.at)
	assert.Equal(t, []int{3, 12}, n.at, "the drops name the records' places in the batch")
	assert.Equal(t, 2, logs.FilterMessageSnippet("dropped").Len())
}

func TestSizeRefusalSplitsDownToTheRecordTooLarge(t *testing.T) {
	sink := &testkit.LogsSink{Answer: func(_ context.Context, _ int, ld plog.Logs) error {
		if ld.LogRecordCount() > 3 || hasBody(ld, "r5") {
			return consumererror.NewPermanent(status.Error(codes.ResourceExhausted, "grpc: received message larger than max (5000000 vs. 4194304)"))
		}
		return nil
	}}
	obs := newCounter()
	core, logs := observer.New(zapcore.ErrorLevel)
	require.NoError(t, newSender(DefaultPolicy(), sink, obs, zap.New(core)).Deliver(context.Background(), batchOf(20), false, nil))
	assert.Equal(t, want(20, 5), sortedBodies(sink))
	assert.Equal(t, map[Class]int{Size: 1}, obs.dropped)
	require.Equal(t, 1, logs.Len())
	fields := logs.All()[0].ContextMap()
	assert.Equal(t, "5", fields["log.file.record_number"], "without a Namer, the record's own attributes name it")
	assert.Positive(t, fields["record_bytes"])
}

func TestOverLimitSendsHalvesFromTheStart(t *testing.T) {
	sink := &testkit.LogsSink{}
	require.NoError(t, newSender(DefaultPolicy(), sink, newCounter(), zap.NewNop()).Deliver(context.Background(), batchOf(8), true, nil))
	assert.Equal(t, want(8), sortedBodies(sink))
	assert.Equal(t, 2, sink.Calls())
}

func TestAuthRefusalHoldsUntilAccepted(t *testing.T) {
	sink := &testkit.LogsSink{Answer: func(_ context.Context, call int, _ plog.Logs) error {
		if call <= 4 {
			return consumererror.NewPermanent(status.Error(codes.Unauthenticated, "token expired"))
		}
		return nil
	}}
	obs := newCounter()
	core, logs := observer.New(zapcore.InfoLevel)
	require.NoError(t, newSender(DefaultPolicy(), sink, obs, zap.New(core)).Deliver(context.Background(), batchOf(6), false, nil))
	assert.Equal(t, want(6), sortedBodies(sink))
	assert.Equal(t, 5, sink.Calls(), "held whole, never split")
	assert.Empty(t, obs.dropped)
	assert.Equal(t, 4, obs.retrying)
	warns := logs.FilterLevelExact(zapcore.WarnLevel).All()
	require.Len(t, warns, 1, "one warning per holdWarnEvery")
	assert.Contains(t, warns[0].ContextMap()["error"], "token expired")
	assert.Equal(t, 1, logs.FilterMessageSnippet("accepts batches again").Len())
}

func TestHoldCodesHold(t *testing.T) {
	refusal := consumererror.NewPermanent(status.Error(codes.FailedPrecondition, "tenant over quota"))
	p := DefaultPolicy()
	assert.Equal(t, Other, p.Classify(refusal))
	p.HoldCodes = []string{"FAILED_PRECONDITION"}
	assert.Equal(t, Auth, p.Classify(refusal))
}

func TestOtherRefusalOfEverythingHolds(t *testing.T) {
	down := true
	var mu sync.Mutex
	sink := &testkit.LogsSink{Answer: func(_ context.Context, call int, _ plog.Logs) error {
		mu.Lock()
		defer mu.Unlock()
		if call >= 12 {
			down = false
		}
		if down {
			return consumererror.NewPermanent(errors.New("the gateway's exporter refused"))
		}
		return nil
	}}
	obs := newCounter()
	require.NoError(t, newSender(DefaultPolicy(), sink, obs, zap.NewNop()).Deliver(context.Background(), batchOf(10), false, nil))
	assert.Equal(t, want(10), sortedBodies(sink))
	assert.Empty(t, obs.dropped, "both halves refused: not about the data")
}

// A batch of one record refused for an unknown reason has no halves to tell whether the
// refusal is about it: it is held, as a batch whose halves are both refused (a line that waited
// for force_flush_period often leaves alone).
func TestOtherRefusalOfABatchOfOneHolds(t *testing.T) {
	sink := &testkit.LogsSink{Answer: func(_ context.Context, call int, _ plog.Logs) error {
		if call < 5 {
			return consumererror.NewPermanent(errors.New("the gateway's exporter refused"))
		}
		return nil
	}}
	obs := newCounter()
	require.NoError(t, newSender(DefaultPolicy(), sink, obs, zap.NewNop()).Deliver(context.Background(), batchOf(1), false, nil))
	assert.Equal(t, want(1), sortedBodies(sink))
	assert.Empty(t, obs.dropped)
}

func TestOtherRefusalOfOneRecordDropsIt(t *testing.T) {
	sink := &testkit.LogsSink{Answer: func(_ context.Context, _ int, ld plog.Logs) error {
		if hasBody(ld, "r6") {
			return consumererror.NewPermanent(status.Error(codes.Internal, "cannot store it"))
		}
		return nil
	}}
	obs := newCounter()
	require.NoError(t, newSender(DefaultPolicy(), sink, obs, zap.NewNop()).Deliver(context.Background(), batchOf(10), false, nil))
	assert.Equal(t, want(10, 6), sortedBodies(sink))
	assert.Equal(t, map[Class]int{Other: 1}, obs.dropped)
}

func TestDropActionDropsTheBatch(t *testing.T) {
	sink := &testkit.LogsSink{Answer: func(context.Context, int, plog.Logs) error {
		return consumererror.NewPermanent(status.Error(codes.InvalidArgument, "no"))
	}}
	obs := newCounter()
	p := DefaultPolicy()
	p.Data = Drop
	core, logs := observer.New(zapcore.ErrorLevel)
	require.NoError(t, newSender(p, sink, obs, zap.New(core)).Deliver(context.Background(), batchOf(30), false, nil))
	assert.Equal(t, 1, sink.Calls())
	assert.Equal(t, map[Class]int{Data: 30}, obs.dropped)
	assert.Equal(t, dropLogBurst, logs.Len(), "the logs are rationed; the metric counts each")
}

func TestRetryableSendsOnlyThePartialFailure(t *testing.T) {
	sink := &testkit.LogsSink{Answer: func(_ context.Context, call int, ld plog.Logs) error {
		if call == 1 {
			return consumererror.NewLogs(errors.New("some failed"), recordsOf(ld, 2, 4))
		}
		return nil
	}}
	require.NoError(t, newSender(DefaultPolicy(), sink, newCounter(), zap.NewNop()).Deliver(context.Background(), batchOf(8), false, nil))
	assert.Equal(t, []string{"r2", "r3"}, sink.Bodies())
}

func TestHoldEndsWithTheContext(t *testing.T) {
	sink := &testkit.LogsSink{Answer: func(context.Context, int, plog.Logs) error {
		return consumererror.NewPermanent(status.Error(codes.PermissionDenied, "no"))
	}}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	err := newSender(DefaultPolicy(), sink, newCounter(), zap.NewNop()).Deliver(ctx, batchOf(4), false, nil)
	assert.ErrorIs(t, err, context.Canceled)
}

// recordsOf returns a copy of records [from, to) of ld.
func recordsOf(ld plog.Logs, from, to int) plog.Logs {
	c := plog.NewLogs()
	ld.CopyTo(c)
	rest := Cut(c, from)
	Cut(rest, to-from)
	return rest
}

func TestHalvesKeepThePartWhole(t *testing.T) {
	ld := batchOf(10)
	left, right := part{logs: ld, n: 10, named: true}.halves()
	assertCarved(t, left.logs, 0, 5)
	assertCarved(t, right.logs, 5, 10)
	assert.Equal(t, 5, right.at)
	assertCarved(t, ld, 0, 10)
}

func TestCutMovesTheRestOut(t *testing.T) {
	for at := range 11 {
		ld := batchOf(10)
		rest := Cut(ld, at)
		assertCarved(t, ld, 0, at)
		assertCarved(t, rest, at, 10)
	}
}

// assertCarved checks that ld holds records [from, to) of a batchOf, in order, each under a
// resource of its own half and the scope, with no resource or scope left empty.
func assertCarved(t *testing.T, ld plog.Logs, from, to int) {
	t.Helper()
	wantBodies := []string{}
	for i := from; i < to; i++ {
		wantBodies = append(wantBodies, fmt.Sprintf("r%d", i))
	}
	assert.Equal(t, wantBodies, testkit.BodiesOf(ld))
	for i := range ld.ResourceLogs().Len() {
		rl := ld.ResourceLogs().At(i)
		require.Equal(t, 1, rl.ScopeLogs().Len())
		require.Positive(t, rl.ScopeLogs().At(0).LogRecords().Len(), "[%d, %d): resource %d without records", from, to, i)
		half, _ := rl.Resource().Attributes().Get("half")
		first, _ := rl.ScopeLogs().At(0).LogRecords().At(0).Attributes().Get("log.file.record_number")
		assert.Equal(t, half.Int() == 1, first.Int() >= 5, "record %d under its own resource", first.Int())
		assert.Equal(t, "test", rl.ScopeLogs().At(0).Scope().Name())
	}
}

func TestPolicyValidateNamesTheKey(t *testing.T) {
	p := DefaultPolicy()
	require.NoError(t, p.Validate())
	p.Other = "wait"
	assert.ErrorContains(t, p.Validate(), "other")
	p = DefaultPolicy()
	p.HoldCodes = []string{"Unauthenticated", "not_a_code"}
	err := p.Validate()
	assert.ErrorContains(t, err, "hold_codes")
	assert.True(t, strings.Contains(err.Error(), "not_a_code"))
}
