package mergelogprocessor

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/processor/processortest"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
	"github.com/mergelog/otelcol-mergelog/processor/mergelogprocessor/internal/metadata"
)

// BenchmarkMerge is the target case: 50 sources of one merge key, 200-byte bodies,
// batches of 1000 records from one source each, the sources taking turns over one second of
// record time per round, so that each round's records are released by the watermarks; with and
// without storage (in memory: what is measured is the processor's own cost). With
// interleave=record the sources' records alternate in time, so each output record is a
// resource run of its own (the worst case: a resource copied per record); with
// interleave=batch each batch has its own slice of the second, one run per batch. One op is
// one batch; records/s is over the benchmark's wall time, which includes delivery to the (nop)
// next consumer on the processor's goroutine (run with -cpu 1 for one core).
func BenchmarkMerge(b *testing.B) {
	for _, c := range []struct {
		stored      bool
		interleaved bool
	}{{false, true}, {true, true}, {false, false}} {
		stored := c.stored
		b.Run(fmt.Sprintf("storage=%v/interleave=%s", stored, map[bool]string{true: "record", false: "batch"}[c.interleaved]), func(b *testing.B) {
			const sources, perBatch = 50, 1000
			cfg := createDefaultConfig().(*Config)
			host := componenttest.NewNopHost()
			if stored {
				_, host = withStorage(cfg, testkit.NewMemStorage())
			}
			p, err := newMergelogProcessor(processortest.NewNopSettings(metadata.Type), cfg, consumertest.NewNop())
			if err != nil {
				b.Fatal(err)
			}
			clock := &fakeClock{}
			p.now = clock.now
			p.ticks = make(chan time.Time)
			proc, err := p.asProcessor(processortest.NewNopSettings(metadata.Type))
			if err != nil {
				b.Fatal(err)
			}
			if err := proc.Start(context.Background(), host); err != nil {
				b.Fatal(err)
			}
			defer func() { _ = proc.Shutdown(context.Background()) }()

			body := strings.Repeat("x", 200)
			round := make([]plog.Logs, sources)
			ctx := context.Background()
			// Round 0 opens the stream; its first max_delay passes on the fake clock, which then
			// stands still: what follows is released by the watermarks alone.
			for s := range round {
				if err := proc.ConsumeLogs(ctx, benchBatch(s, 0, perBatch, body, c.interleaved)); err != nil {
					b.Fatal(err)
				}
			}
			clock.advance(cfg.MaxDelay)
			p.tick()
			b.ReportAllocs()
			b.ResetTimer()
			for op := 0; op < b.N; op += sources {
				b.StopTimer()
				for s := range round {
					round[s] = benchBatch(s, 1+op/sources, perBatch, body, c.interleaved)
				}
				b.StartTimer()
				for _, ld := range round {
					if err := proc.ConsumeLogs(ctx, ld); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(b.N)*perBatch/b.Elapsed().Seconds(), "records/s")
		})
	}
}

// benchBatch is source's batch of round r: n records spread over second r of record time,
// or, not interleaved, over the source's 20 ms of it.
func benchBatch(source, r, n int, body string, interleaved bool) plog.Logs {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", "web")
	rl.Resource().Attributes().PutStr("k8s.node.name", fmt.Sprintf("node-%d", source))
	recs := rl.ScopeLogs().AppendEmpty().LogRecords()
	recs.EnsureCapacity(n)
	start, span := base.Add(time.Duration(r)*time.Second), time.Second
	if !interleaved {
		start, span = start.Add(time.Duration(source)*20*time.Millisecond), 20*time.Millisecond
	}
	for i := range n {
		lr := recs.AppendEmpty()
		lr.SetTimestamp(pcommon.NewTimestampFromTime(start.Add(time.Duration(i) * span / time.Duration(n))))
		lr.Body().SetStr(body)
	}
	return ld
}
