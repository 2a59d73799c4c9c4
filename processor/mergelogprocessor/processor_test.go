package mergelogprocessor

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

// Three nodes' records interleave by time: what every watermark passed goes out, in order, and
// the rest after max_delay.
func TestOrderAcrossSources(t *testing.T) {
	h := startHarness(t, testConfig(), &testkit.LogsSink{}, nil)
	h.open("web", "node-a", "node-b", "node-c")
	h.send("web", "node-a", 10, 40, 70)
	h.send("web", "node-b", 20, 50, 80)
	assert.Empty(t, h.delivered(), "node-c is behind")
	assert.Equal(t, 6, h.held())

	h.send("web", "node-c", 30, 60, 90)
	// The watermark is node-a's 70: everything up to it goes, in time order.
	assert.Equal(t, bodies("node-a@10 node-b@20 node-c@30 node-a@40 node-b@50 node-c@60 node-a@70"), h.delivered())

	h.clock.advance(999 * time.Millisecond)
	h.tick()
	assert.Len(t, h.delivered(), 7, "80 and 90 wait for node-a, up to max_delay")
	h.clock.advance(time.Millisecond)
	h.tick()
	assert.Equal(t, bodies("node-b@80 node-c@90"), h.delivered()[7:])
	assert.Zero(t, h.sum("records_late"))
}

// During a new group's first max_delay only max_delay releases: sources not heard from yet
// cannot be waited for, and the first one heard must not make all the others late.
func TestNewGroupWaitsForItsSources(t *testing.T) {
	h := startHarness(t, testConfig(), &testkit.LogsSink{}, nil)
	h.send("web", "node-a", 10, 30)
	h.clock.advance(500 * time.Millisecond)
	h.send("web", "node-b", 20, 40)
	h.tick()
	assert.Empty(t, h.delivered())
	h.clock.advance(500 * time.Millisecond)
	h.tick()
	// node-a's records waited max_delay, and so goes node-b@20 before node-a@30; node-b@40
	// waits for node-a now that the watermarks count.
	assert.Equal(t, bodies("node-a@10 node-b@20 node-a@30"), h.delivered())
	h.send("web", "node-a", 50)
	assert.Equal(t, bodies("node-a@10 node-b@20 node-a@30 node-b@40"), h.delivered())
	assert.Zero(t, h.sum("records_late"))
}

// The processor does not assume a source is in order: disorder within max_delay is sorted out.
func TestDisorderWithinSource(t *testing.T) {
	h := startHarness(t, testConfig(), &testkit.LogsSink{}, nil)
	h.open("web", "node-a", "node-b")
	h.send("web", "node-a", 30, 10)
	h.send("web", "node-b", 20, 40)
	h.send("web", "node-a", 50)
	assert.Equal(t, bodies("node-a@10 node-b@20 node-a@30 node-b@40"), h.delivered())
}

// Groups of different merge keys do not wait for each other.
func TestMergeKeysIndependent(t *testing.T) {
	h := startHarness(t, testConfig(), &testkit.LogsSink{}, nil)
	h.open("web", "node-a", "node-b")
	h.open("db", "node-c")
	h.send("web", "node-a", 10)
	h.send("db", "node-c", 5) // db's only source: its watermark is its own
	assert.Equal(t, bodies("node-c@5"), h.delivered())
}

// A record behind what already went out is released at once and counted, never dropped.
func TestLateRecordReleasedAtOnce(t *testing.T) {
	h := startHarness(t, testConfig(), &testkit.LogsSink{}, nil)
	h.open("web", "node-a", "node-b")
	h.send("web", "node-a", 100)
	h.send("web", "node-b", 100)
	require.Len(t, h.delivered(), 2)
	h.send("web", "node-b", 50, 60) // node-b replays, as after an agent restart
	assert.Equal(t, bodies("node-a@100 node-b@100 node-b@50 node-b@60"), h.delivered(),
		"late records go out at once, without a tick, in their source's order")
	assert.EqualValues(t, 2, h.sum("records_late"))
	assert.Zero(t, h.held())
}

// A source silent for idle_timeout stops holding the others back; when it comes back it is a
// source again.
func TestIdleSource(t *testing.T) {
	cfg := testConfig()
	cfg.MaxDelay = time.Minute
	cfg.IdleTimeout = 2 * time.Second
	h := startHarness(t, cfg, &testkit.LogsSink{}, nil)
	h.open("web", "node-a", "node-b")
	h.send("web", "node-a", 10)
	h.send("web", "node-b", 20) // node-b then goes quiet
	h.send("web", "node-a", 30)
	assert.Equal(t, bodies("node-a@10 node-b@20"), h.delivered())

	h.clock.advance(time.Second)
	h.send("web", "node-a", 40)
	h.tick()
	assert.Len(t, h.delivered(), 2, "node-b is quiet, not idle yet")

	h.clock.advance(time.Second) // node-b silent for 2 s, node-a for 1 s
	h.tick()
	assert.Equal(t, bodies("node-a@10 node-b@20 node-a@30 node-a@40"), h.delivered(),
		"node-b idle: node-a's watermark alone releases")
	assert.EqualValues(t, 1, h.sum("sources_idle"))

	h.send("web", "node-a", 50) // node-a alone: out on arrival
	assert.Len(t, h.delivered(), 5)
	h.send("web", "node-b", 60) // back: holds node-a back again
	h.send("web", "node-a", 70)
	assert.Equal(t, bodies("node-a@50 node-b@60"), h.delivered()[4:])
}

// max_delay bounds the wait for a source that is quiet but not idle.
func TestMaxDelay(t *testing.T) {
	h := startHarness(t, testConfig(), &testkit.LogsSink{}, nil)
	h.open("web", "node-a", "node-b")
	h.send("web", "node-a", 10)
	h.send("web", "node-b", 5)
	h.clock.advance(500 * time.Millisecond)
	h.send("web", "node-a", 20)
	assert.Equal(t, bodies("node-b@5"), h.delivered())
	h.clock.advance(500 * time.Millisecond)
	h.tick()
	assert.Equal(t, bodies("node-b@5 node-a@10"), h.delivered(), "node-a@10 waited max_delay, node-a@20 has not")
	h.clock.advance(500 * time.Millisecond)
	h.tick()
	assert.Equal(t, bodies("node-b@5 node-a@10 node-a@20"), h.delivered())
}

// Beyond max_held records per merge key the oldest go out early, in order, counted.
func TestMaxHeld(t *testing.T) {
	cfg := testConfig()
	cfg.MaxHeld = 3
	h := startHarness(t, cfg, &testkit.LogsSink{}, nil)
	h.open("web", "node-a", "node-b")
	h.open("db", "node-a", "node-b")
	h.send("web", "node-a", 10, 20, 30, 40, 50)
	// node-b is behind: of the five, the two oldest go early.
	assert.Equal(t, bodies("node-a@10 node-a@20"), h.delivered())
	assert.Equal(t, 3, h.held())
	assert.EqualValues(t, 2, h.sum("records_released_early"))
	h.send("db", "node-a", 1, 2, 3) // another key has a bound of its own
	assert.Equal(t, 6, h.held())
	h.send("web", "node-b", 60)
	assert.Equal(t, bodies("node-a@10 node-a@20 node-a@30 node-a@40 node-a@50"), h.delivered())
}

// What a group keeps is bounded by max_held however long a source is held back: the window,
// and the scopes the held records came in, whose slots are emptied (the batch let go) once
// their last record went.
func TestMemoryBoundedByMaxHeld(t *testing.T) {
	cfg := testConfig()
	cfg.MaxHeld = 50
	h := startHarness(t, cfg, &testkit.LogsSink{}, nil)
	h.open("web", "node-a", "node-b")
	require.Len(t, h.p.groups, 1)
	var g *group
	for _, gr := range h.p.groups {
		g = gr
	}
	for i := range 500 { // node-b stays behind: everything goes early
		h.send("web", "node-a", 10*i+1, 10*i+2, 10*i+3, 10*i+4, 10*i+5, 10*i+6, 10*i+7)
		h.p.mu.Lock()
		held, slots, free := g.window.Len(), len(g.origins), g.freeOrigins
		emptied := true
		for _, slot := range free {
			emptied = emptied && g.origins[slot] == origin{}
		}
		h.p.mu.Unlock()
		require.LessOrEqual(t, held, cfg.MaxHeld)
		require.LessOrEqual(t, slots, cfg.MaxHeld/7+2, "one slot per batch with records held, and the one arriving")
		require.True(t, emptied, "a slot no record is held from keeps nothing")
	}
	assert.EqualValues(t, 500*7-cfg.MaxHeld, h.sum("records_released_early"))
}

// Records without a timestamp are placed by their observed timestamp, and records with
// neither stay after the record before them from their source.
func TestObservedTimestampFallback(t *testing.T) {
	h := startHarness(t, testConfig(), &testkit.LogsSink{}, nil)
	h.open("web", "node-a", "node-b")
	ld := batch("web", "node-a", 10)
	recs := ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords()
	observed := recs.AppendEmpty()
	observed.SetObservedTimestamp(pcommon.NewTimestampFromTime(base.Add(30 * time.Millisecond)))
	observed.Body().SetStr("observed@30")
	untimed := recs.AppendEmpty()
	untimed.Body().SetStr("untimed")
	require.NoError(t, h.proc.ConsumeLogs(context.Background(), ld))
	h.send("web", "node-b", 20, 40)
	assert.Equal(t, bodies("node-a@10 node-b@20 observed@30 untimed"), h.delivered())
}

// ConsumeLogs returns once records are held, whatever the next consumer does: all sources of a
// key may come through one caller in order (a Kafka partition), which must not wait for
// releases.
func TestConsumeDoesNotWaitForRelease(t *testing.T) {
	unblock := make(chan struct{})
	sink := &testkit.LogsSink{Answer: func(ctx context.Context, _ int, _ plog.Logs) error {
		select {
		case <-unblock:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}}
	h := startHarness(t, testConfig(), sink, nil)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 50 {
			h.send("web", "node-a", 1000+i) // held: the group is new, then node-b is behind
			h.send("web", "node-b", i)
		}
	}()
	select {
	case <-done:
	case <-time.After(testkit.Timeout):
		t.Fatal("ConsumeLogs waited for a release")
	}
	assert.Equal(t, 100, h.held())
	h.clock.advance(time.Second)
	h.tick() // max_delay: all 100 go to a consumer that does not take them
	assert.Equal(t, 0, h.held())
	h.send("web", "node-b", 100) // and ConsumeLogs still returns (node-b@100 is due at once)
	close(unblock)
	assert.Len(t, h.delivered(), 101)
}

// ConsumeLogs waits only when max_held released records are waiting for a next consumer that
// does not take them, and gives up when its context ends.
func TestConsumeWaitsForSlowNextConsumer(t *testing.T) {
	cfg := testConfig()
	cfg.MaxHeld = 4
	unblock := make(chan struct{})
	sink := &testkit.LogsSink{Answer: func(context.Context, int, plog.Logs) error { <-unblock; return nil }}
	h := startHarness(t, cfg, sink, nil)
	h.send("web", "node-a", 1, 2, 3, 4)
	h.clock.advance(time.Second)
	h.tick() // released, not taken
	// ConsumeLogs waits while the next consumer takes nothing: the deadline must pass, however
	// slow the machine; its length only bounds the test.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err := h.proc.ConsumeLogs(ctx, batch("web", "node-a", 5))
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	close(unblock)
	assert.Len(t, h.delivered(), 4)
	h.send("web", "node-a", 5)
	assert.Len(t, h.delivered(), 5)
}

// A retryable refusal keeps the batch at the head: sent again, nothing overtakes it.
func TestRetryKeepsOrder(t *testing.T) {
	sink := &testkit.LogsSink{Answer: func(_ context.Context, call int, _ plog.Logs) error {
		if call == 2 {
			return errors.New("backend busy")
		}
		return nil
	}}
	h := startHarness(t, testConfig(), sink, nil)
	h.open("web", "node-a")
	h.send("web", "node-a", 10)
	h.send("web", "node-a", 20)
	testkit.WaitUntil(t, testkit.Timeout, "two records", func() bool { return sink.RecordCount() == h.seen+2 })
	assert.Equal(t, bodies("node-a@10 node-a@20"), h.delivered())
	assert.EqualValues(t, 1, h.sum("consume_retries"))
}

// Released records keep their resource and scope; consecutive records of one resource share
// one copy of it.
func TestOutputGroupedByResource(t *testing.T) {
	h := startHarness(t, testConfig(), &testkit.LogsSink{}, nil)
	h.send("web", "node-a", 10, 20, 40)
	h.send("web", "node-b", 30, 50)
	h.clock.advance(time.Second)
	h.tick()
	require.Len(t, h.delivered(), 5)
	require.Len(t, h.sink.Batches(), 1)
	var runs []string
	for _, rl := range h.sink.Batches()[0].ResourceLogs().All() {
		node, _ := rl.Resource().Attributes().Get("k8s.node.name")
		service, _ := rl.Resource().Attributes().Get("service.name")
		assert.Equal(t, "web", service.Str())
		runs = append(runs, node.Str())
		assert.Equal(t, 1, rl.ScopeLogs().Len())
	}
	// 10 20 | 30 | 40 | 50
	assert.Equal(t, []string{"node-a", "node-b", "node-a", "node-b"}, runs)
}

// The records of one resource's scopes, interleaved in time, come out under one copy of the
// resource, each run under a copy of its scope; the stored batch is deleted once all its runs
// were accepted.
func TestOutputKeepsScopes(t *testing.T) {
	mem := testkit.NewMemStorage()
	cfg, host := withStorage(testConfig(), mem)
	h := startHarness(t, cfg, &testkit.LogsSink{}, host)
	h.open("web", "node-a", "node-b")
	ld := batch("web", "node-a")
	for _, sc := range []struct {
		name     string
		instants []int
	}{{"s1", []int{10, 30}}, {"s2", []int{20, 40}}} {
		sl := ld.ResourceLogs().At(0).ScopeLogs().AppendEmpty()
		sl.Scope().SetName(sc.name)
		batch("web", "node-a", sc.instants...).ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().MoveAndAppendTo(sl.LogRecords())
	}
	require.NoError(t, h.proc.ConsumeLogs(context.Background(), ld))
	h.send("web", "node-b", 50)
	assert.Equal(t, bodies("node-a@10 node-a@20 node-a@30 node-a@40"), h.delivered())
	last := h.sink.Batches()[len(h.sink.Batches())-1]
	require.Equal(t, 1, last.ResourceLogs().Len())
	var scopes []string
	for _, sl := range last.ResourceLogs().At(0).ScopeLogs().All() {
		scopes = append(scopes, sl.Scope().Name())
	}
	assert.Equal(t, []string{"s1", "s2", "s1", "s2"}, scopes)

	h.clock.advance(time.Second)
	h.tick()
	assert.Equal(t, bodies("node-a@10 node-a@20 node-a@30 node-a@40 node-b@50"), h.delivered())
	assert.Equal(t, []string{"batches.low", "batches.next"}, mem.Keys())
}

// Timestamps far in the future or the past, and clocks behind: every record goes out (by
// max_delay at the latest), those behind what went out at once and counted late, none dropped,
// each source's in its own order. A source a year ahead then makes the others late: counted.
func TestBadTimestamps(t *testing.T) {
	h := startHarness(t, testConfig(), &testkit.LogsSink{}, nil)
	h.open("web", "node-a", "node-b", "node-c")
	const year = 365 * 24 * 3600 * 1000
	h.send("web", "node-a", 10, year, year+1) // a clock a year ahead from its second record on
	h.send("web", "node-b", -5*60*1000, 20)   // five minutes behind, then right
	h.send("web", "node-c", -year, 30)        // a year behind, then right
	assert.Equal(t, bodies("node-b@-300000 node-c@-31536000000 node-a@10 node-b@20"), h.delivered())
	h.clock.advance(time.Second)
	h.tick()
	assert.Equal(t, bodies("node-b@-300000 node-c@-31536000000 node-a@10 node-b@20 node-c@30 node-a@31536000000 node-a@31536000001"),
		h.delivered())
	assert.EqualValues(t, 2, h.sum("records_late"))
	h.send("web", "node-b", 40)
	assert.Len(t, h.delivered(), 8, "behind node-a's year: late, out at once")
	assert.EqualValues(t, 3, h.sum("records_late"))
	assert.Zero(t, h.held())
}
