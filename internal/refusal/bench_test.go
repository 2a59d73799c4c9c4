package refusal

import (
	"fmt"
	"testing"

	"go.opentelemetry.io/collector/pdata/plog"
)

// BenchmarkSplit splits a batch of 2000 records, each with the ten attributes json_parser gives
// a line of the steady benchmark's, in halves: by copying (halves, for a part still needed
// whole) and by moving (cut, for a batch sent over its limit).
func BenchmarkSplit(b *testing.B) {
	const n = 2000
	for _, split := range []struct {
		name string
		f    func(part) (part, part)
	}{{"halves", part.halves}, {"cut", part.cut}} {
		b.Run(split.name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				ld := parsedBatch(n)
				b.StartTimer()
				split.f(part{logs: ld, n: n})
			}
		})
	}
}

func parsedBatch(n int) plog.Logs {
	ld := plog.NewLogs()
	recs := ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords()
	for i := range n {
		r := recs.AppendEmpty()
		r.Body().SetStr(fmt.Sprintf(`{"seq":%d}`, i))
		for a := range 10 {
			r.Attributes().PutStr(fmt.Sprintf("field%d", a), "value")
		}
	}
	return ld
}
