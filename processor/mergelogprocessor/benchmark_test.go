package mergelogprocessor

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/processor/processortest"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
	"github.com/mergelog/otelcol-mergelog/processor/mergelogprocessor/internal/metadata"
)

// The target case: 50 sources (nodes) of one merge key, 200-byte bodies, batches of
// 1000 records from one source each.
const (
	benchSources  = 50
	benchPerBatch = 1000
	// benchFlush is how often each node's agent sends a batch: 1000 records/s per node.
	benchFlush = time.Second
	// benchStagger is the gap between two nodes' sends: the agents are not in step, so the
	// sends are spread evenly over each second.
	benchStagger = benchFlush / benchSources
)

// BenchmarkMerge runs the processor as a gateway sees 50 nodes on one wall clock: node s sends
// at s×20 ms past each second the records of the second before, and the processor's (fake)
// clock and release timer follow the sends. So each arrival's watermark releases about one
// batch worth of records (the 20 ms the slowest node has now covered), as in steady state at a
// real gateway, and the group holds about one second of records.
//
// With shape=interleaved each node logs at its own random instants over the whole second, so
// the nodes' records interleave in time and almost every output record is a resource run of
// its own (the case the target is about); with shape=runs each node logs only in the 20 ms
// before its send, so each batch comes out as one run. One op is one batch; records/s is over
// the benchmark's wall time, which includes delivery to the next consumer (counting, nothing
// more) on the processor's goroutine, waited for after each round (run with -cpu 1 for one
// core); records/cpu-s is over the CPU time the process used meanwhile, which on a shared
// machine says better what a core does. runs/record is the output's resource runs per record.
func BenchmarkMerge(b *testing.B) {
	for _, c := range []struct {
		stored      bool
		interleaved bool
	}{{false, true}, {true, true}, {false, false}} {
		shape := map[bool]string{true: "interleaved", false: "runs"}[c.interleaved]
		b.Run(fmt.Sprintf("storage=%v/shape=%s", c.stored, shape), func(b *testing.B) {
			benchmarkMerge(b, c.stored, c.interleaved)
		})
	}
}

func benchmarkMerge(b *testing.B, stored, interleaved bool) {
	cfg := createDefaultConfig().(*Config)
	host := componenttest.NewNopHost()
	if stored {
		_, host = withStorage(cfg, testkit.NewMemStorage())
	}
	var runs atomic.Int64
	next, err := consumer.NewLogs(func(_ context.Context, ld plog.Logs) error {
		runs.Add(int64(ld.ResourceLogs().Len())) // not a walk over the records: not measured
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	p, err := newMergelogProcessor(processortest.NewNopSettings(metadata.Type), cfg, next)
	if err != nil {
		b.Fatal(err)
	}
	clock := &fakeClock{}
	clock.ns.Store(base.UnixNano())
	p.now = clock.now
	p.ticks = make(chan time.Time) // ticked below, on the clock the sends follow
	proc, err := p.asProcessor(processortest.NewNopSettings(metadata.Type))
	if err != nil {
		b.Fatal(err)
	}
	if err := proc.Start(context.Background(), host); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = proc.Shutdown(context.Background()) }()

	ctx := context.Background()
	body := strings.Repeat("x", 200)
	rng := rand.New(rand.NewPCG(1, 2))
	round := make([]plog.Logs, benchSources)
	lastTick := time.Duration(0)
	// send hands the processor round r of every node, each at its instant.
	send := func(r int) {
		for s, ld := range round {
			at := time.Duration(r)*benchFlush + time.Duration(s)*benchStagger
			clock.ns.Store(base.Add(at).UnixNano())
			for ; lastTick+cfg.ReleaseInterval <= at; lastTick += cfg.ReleaseInterval {
				p.tick()
			}
			if err := proc.ConsumeLogs(ctx, ld); err != nil {
				b.Fatal(err)
			}
			round[s] = plog.Logs{} // the processor's now, as a receiver's request would be
			// The sender waits for its next batch, as a receiver's goroutine waits on the
			// network, so that delivery runs between arrivals as at a gateway with one core.
			runtime.Gosched()
		}
	}
	build := func(r int) {
		for s := range round {
			round[s] = benchBatch(rng, s, r, body, interleaved)
		}
	}
	// The group's first max_delay releases only by max_delay, and one more round brings it to
	// its steady state: not measured.
	warmup := int(cfg.MaxDelay/benchFlush) + 2
	for r := 1; r <= warmup; r++ {
		build(r)
		send(r)
	}
	runs.Store(0)
	var cpu time.Duration
	cpuOK := true
	// measure runs the round, then waits until what it released is delivered, so that the
	// delivery goroutine's work falls in the measured time.
	measure := func(r int) {
		cpu0, ok0 := testkit.ProcessCPUTime()
		b.StartTimer()
		send(r)
		for p.queue.records() > 0 {
			runtime.Gosched()
		}
		b.StopTimer()
		cpu1, ok1 := testkit.ProcessCPUTime()
		cpu += cpu1 - cpu0
		cpuOK = cpuOK && ok0 && ok1
	}
	b.ReportAllocs()
	b.ResetTimer()
	b.StopTimer()
	for op := 0; op < b.N; op += benchSources {
		r := warmup + 1 + op/benchSources
		build(r)
		measure(r)
	}
	n := float64((b.N + benchSources - 1) / benchSources * benchSources * benchPerBatch)
	b.ReportMetric(n/b.Elapsed().Seconds(), "records/s")
	if cpuOK {
		b.ReportMetric(n/cpu.Seconds(), "records/cpu-s")
	}
	// In the steady state a round releases as many records as it brings.
	b.ReportMetric(float64(runs.Load())/n, "runs/record")
}

// benchBatch is node source's batch sent in round r: its records of the second before its
// send, in time order, at random instants (interleaved), or over the 20 ms before the send.
func benchBatch(rng *rand.Rand, source, r int, body string, interleaved bool) plog.Logs {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", "web")
	rl.Resource().Attributes().PutStr("k8s.node.name", fmt.Sprintf("node-%d", source))
	recs := rl.ScopeLogs().AppendEmpty().LogRecords()
	recs.EnsureCapacity(benchPerBatch)
	end := base.Add(time.Duration(r)*benchFlush + time.Duration(source)*benchStagger)
	span := benchStagger
	if interleaved {
		span = benchFlush
	}
	// One slot of the span per record, at a random instant within it: in order within the
	// node, interleaved with the other nodes.
	slot := span / benchPerBatch
	for i := range benchPerBatch {
		lr := recs.AppendEmpty()
		at := end.Add(-span + time.Duration(i)*slot + time.Duration(rng.Int64N(int64(slot))))
		lr.SetTimestamp(pcommon.NewTimestampFromTime(at))
		lr.Body().SetStr(body)
	}
	return ld
}
