package fastops

import (
	"fmt"
	"testing"

	"go.opentelemetry.io/collector/pdata/plog"
)

// BenchmarkJSONParseInto measures json_parser's fast parse alone, each line into a new
// record's attributes as the receiver makes them, the records of a batch alive together so that
// the collector has their garbage to deal with: lines like bench/'s JSON application log
// (flat), and lines with an object and an array in them (nested).
func BenchmarkJSONParseInto(b *testing.B) {
	for _, bc := range []struct {
		name string
		line func(i int) string
	}{
		{"flat", func(i int) string {
			return fmt.Sprintf(`{"time":"2026-11-29T10:00:%02d.%09dZ","level":"info","logger":"cart.Handler","msg":"GET /api/cart/%d served","method":"GET","path":"/api/cart/%d","status":%d,"duration_ms":%d,"request_id":"%016x","thread":"worker-%d"}`,
				i%60, i*7919%1e9, i*31, i*31, 200+i%5, i*37%900, uint64(i)*0x9e3779b97f4a7c15, i%16)
		}},
		{"nested", func(i int) string {
			return fmt.Sprintf(`{"ts":%d.%03d,"level":"warn","msg":"slow \"query\"","http":{"method":"POST","path":"/api/items/%d","status":%d,"latency":0.%03d},"tags":["db","slow",%d],"user":{"id":%d,"roles":["admin","ops"]}}`,
				1764410400+i, i%1000, i, 200+i%5, i%1000, i%7, i*13)
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			lines := make([]string, 1024)
			size := 0
			for i := range lines {
				lines[i] = bc.line(i)
				size += len(lines[i])
			}
			var p jsonParser
			batch := make([]plog.LogRecord, 0, 100)
			b.SetBytes(int64(size / len(lines)))
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				lr := plog.NewLogRecord()
				attrs := lr.Attributes()
				attrs.EnsureCapacity(12)
				attrs.PutStr("log.file.name", "app.log")
				if err := p.parseInto(lines[i%len(lines)], attrs); err != nil {
					b.Fatal(err)
				}
				if len(batch) == cap(batch) {
					batch = batch[:0]
				}
				batch = append(batch, lr)
				i++
			}
		})
	}
}
