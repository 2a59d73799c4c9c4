package mergelogprocessor

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

var storageID = component.MustNewIDWithName("mem_storage", "test")

func withStorage(cfg *Config, m *testkit.MemStorage) (*Config, component.Host) {
	id := storageID
	cfg.StorageID = &id
	return cfg, testkit.HostWith(id, m)
}

// A gateway that dies with records held, or released and not yet accepted, replays them at its
// next start: nothing is lost; what was accepted is not stored any more.
func TestRestartReplaysWhatWasNotAccepted(t *testing.T) {
	mem := testkit.NewMemStorage()
	var down atomic.Bool // the backend stops taking anything: the gateway's last moments
	sink := &testkit.LogsSink{Answer: func(context.Context, int, plog.Logs) error {
		if down.Load() {
			return errors.New("backend gone")
		}
		return nil
	}}
	cfg, host := withStorage(testConfig(), mem)
	h := startHarness(t, cfg, sink, host)
	h.open("web", "node-a", "node-b")
	h.send("web", "node-a", 10, 30)
	h.send("web", "node-b", 20, 40) // out: a@10 b@20 a@30; held: b@40
	require.Equal(t, bodies("node-a@10 node-b@20 node-a@30"), h.delivered())
	h.send("web", "node-a", 50) // b@40 due...
	assert.Eventually(t, func() bool { return len(h.delivered()) == 4 }, testkit.Timeout, time.Millisecond)

	down.Store(true) // from here nothing is accepted
	h.send("web", "node-a", 60)
	h.send("web", "node-b", 70) // a@50 a@60 released, refused; b@70 held
	h.shutdownRefused()
	accepted := sink.Bodies()
	assert.NotEmpty(t, mem.Keys())

	sink2 := &testkit.LogsSink{}
	cfg2, host2 := withStorage(testConfig(), mem)
	h2 := startHarness(t, cfg2, sink2, host2)
	assert.EqualValues(t, 3, h2.sum("records_replayed"), "the batches of a@60, b@70 and a@50")
	h2.clock.advance(time.Second)
	h2.tick()
	replayed := h2.delivered()
	assert.Equal(t, bodies("node-a@50 node-a@60 node-b@70"), replayed)
	assert.Equal(t, []string{"batches.low", "batches.next"}, mem.Keys(), "everything accepted is deleted")

	all := append(slices.Clone(accepted), replayed...)
	for _, want := range bodies("node-a@10 node-b@20 node-a@30 node-b@40 node-a@50 node-a@60 node-b@70") {
		assert.Contains(t, all, want)
	}
	h2.shutdown(context.Background())
	assert.Equal(t, []string{"batches.low", "batches.next"}, mem.Keys())
}

// Every batch is in storage before ConsumeLogs returns and deleted once all its records were
// accepted, even when its records go out in different releases.
func TestStoredUntilAccepted(t *testing.T) {
	mem := testkit.NewMemStorage()
	cfg, host := withStorage(testConfig(), mem)
	h := startHarness(t, cfg, &testkit.LogsSink{}, host)
	h.open("web", "node-a", "node-b")
	require.Equal(t, []string{"batches.low", "batches.next"}, mem.Keys())
	h.send("web", "node-a", 10, 30)
	n := len(mem.Keys())
	h.send("web", "node-b", 20) // a@10 b@20 out, a@30 held
	require.Len(t, h.delivered(), 2)
	assert.Len(t, mem.Keys(), n, "node-b's batch is deleted, node-a's is kept for a@30")
	h.clock.advance(time.Second)
	h.tick()
	require.Len(t, h.delivered(), 3)
	assert.Equal(t, []string{"batches.low", "batches.next"}, mem.Keys())
}

// A backlog in storage larger than max_held is replayed at the next consumer's pace (start
// waits for space as ConsumeLogs does, the group sheds beyond max_held), and everything comes
// out, in order.
func TestReplayLargerThanMaxHeld(t *testing.T) {
	mem := testkit.NewMemStorage()
	refuse := &testkit.LogsSink{Answer: func(context.Context, int, plog.Logs) error { return errors.New("backend gone") }}
	cfg, host := withStorage(testConfig(), mem)
	h := startHarness(t, cfg, refuse, host)
	for i := range 10 {
		h.send("web", "node-a", 10*i, 10*i+5)
	}
	h.shutdownRefused()

	cfg2, host2 := withStorage(testConfig(), mem)
	cfg2.MaxHeld = 3
	sink := &testkit.LogsSink{}
	h2 := startHarness(t, cfg2, sink, host2)
	assert.EqualValues(t, 20, h2.sum("records_replayed"))
	h2.clock.advance(time.Second)
	h2.tick()
	order := h2.delivered()
	require.Len(t, order, 20)
	assert.Equal(t, "node-a@0", order[0])
	assert.Equal(t, "node-a@95", order[19])
	assert.Equal(t, []string{"batches.low", "batches.next"}, mem.Keys())
}
