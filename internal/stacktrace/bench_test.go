package stacktrace

import (
	"fmt"
	"strings"
	"testing"
)

// plainLines are ordinary log lines of size bytes in the shapes pods print: a timestamp first,
// logfmt, klog, JSON, a word and prose with no ':' for a long way (the longest scans), a path.
func plainLines(size int) [][]byte {
	shapes := []string{
		"2026-12-02T09:00:00.123Z INFO request served path=/api/orders status=200 ",
		"level=info ts=2026-12-02T09:00:00Z caller=server.go:42 msg=\"request served\" ",
		"I1202 09:00:00.123456       1 controller.go:123] Reconciling object ",
		`{"level":"info","ts":"2026-12-02T09:00:00Z","msg":"request served","path":"/api"} `,
		"INFO request served without any colon for a long stretch of text ",
		"/var/log/app is where this line says the logs go ",
	}
	out := make([][]byte, len(shapes))
	for i, s := range shapes {
		out[i] = []byte((s + strings.Repeat("x", size))[:size])
	}
	return out
}

// BenchmarkPlainLine is the cost of a verdict on an ordinary line with every language on, by
// line length: the same from 50 B to 16 KiB, as no check reads a whole line.
func BenchmarkPlainLine(b *testing.B) {
	for _, size := range []int{50, 256, 1 << 10, 4 << 10, 16 << 10} {
		b.Run(fmt.Sprint(size), func(b *testing.B) {
			lines := plainLines(size)
			d := New(All)
			b.ReportAllocs()
			for b.Loop() {
				for _, line := range lines {
					if d.Next(line) != Start {
						b.Fatalf("%q is not a Start", line)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(lines)), "ns/line")
		})
	}
}
