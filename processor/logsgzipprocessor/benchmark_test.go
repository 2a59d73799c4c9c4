package logsgzipprocessor

import (
	"bytes"
	stdgzip "compress/gzip"
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/processor/processortest"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
	"github.com/mergelog/otelcol-mergelog/processor/logsgzipprocessor/internal/metadata"
)

// The cases named in the issue: records × body size.
var benchCases = []struct {
	name          string
	records, size int
}{
	{"SmallRecords", 100, 50},
	{"MediumRecords", 100, 500},
	{"LargeRecords", 100, 5000},
	{"ManySmallRecords", 10000, 50},
	{"ParallelRecords", 1000, 1000},
}

// BenchmarkCompress compares, on one core, this processor (impl=ours) with
// the reference design (impl=reference) and with bare klauspost compression
// of the same bodies at the same level (impl=ceiling):
//
//	go test -run '^$' -bench Compress -benchmem -count 6 | benchstat -col /impl -
func BenchmarkCompress(b *testing.B) {
	for _, bc := range benchCases {
		src := accessLogBatch(bc.records, bc.size)
		b.Run(bc.name+"/impl=ours", func(b *testing.B) {
			benchOurs(b, src, 1)
		})
		b.Run(bc.name+"/impl=reference", func(b *testing.B) {
			ref := newReference()
			runOnCopies(b, src, func(ld plog.Logs) {
				if err := ref.consumeLogs(ld); err != nil {
					b.Fatal(err)
				}
			})
		})
		b.Run(bc.name+"/impl=ceiling", func(b *testing.B) {
			benchCeiling(b, rawBodies(src), defaultLevel)
		})
	}
}

// BenchmarkWorkers measures how the 1000×1000 B case scales from one worker
// to two (on a machine with at least two cores):
//
//	go test -run '^$' -bench Workers -benchmem -count 6 | benchstat -col /workers -
func BenchmarkWorkers(b *testing.B) {
	src := accessLogBatch(1000, 1000)
	for _, workers := range []int{1, 2} {
		b.Run("ParallelRecords/workers="+strconv.Itoa(workers), func(b *testing.B) {
			if runtime.GOMAXPROCS(0) < workers {
				b.Skipf("GOMAXPROCS=%d is less than %d workers", runtime.GOMAXPROCS(0), workers)
			}
			benchOurs(b, src, workers)
		})
	}
}

// BenchmarkLevel is the measurement behind the default level: speed and
// ratio (compressed/original) of each candidate level on access-log bodies.
//
//	go test -run '^$' -bench Level -count 6 | benchstat -col /level -
func BenchmarkLevel(b *testing.B) {
	levels := []struct {
		name  string
		level int
	}{
		{"stateless", gzip.StatelessCompression},
		{"huffman", gzip.HuffmanOnly},
		{"1", gzip.BestSpeed},
		{"default", gzip.DefaultCompression},
		{"9", gzip.BestCompression},
	}
	for _, size := range []int{50, 200, 500, 5000} {
		bodies := rawBodies(accessLogBatch(100, size))
		for _, l := range levels {
			b.Run(fmt.Sprintf("size=%d/level=%s", size, l.name), func(b *testing.B) {
				out := benchCeiling(b, bodies, l.level)
				b.ReportMetric(float64(out)/float64(len(bodies)*size), "ratio")
			})
		}
	}
}

func benchOurs(b *testing.B, src plog.Logs, workers int) {
	cfg := createDefaultConfig().(*Config)
	cfg.MaxWorkers = workers
	p, err := NewFactory().CreateLogs(context.Background(), processortest.NewNopSettings(metadata.Type), cfg, consumertest.NewNop())
	if err != nil {
		b.Fatal(err)
	}
	runOnCopies(b, src, func(ld plog.Logs) {
		if err := p.ConsumeLogs(context.Background(), ld); err != nil {
			b.Fatal(err)
		}
	})
}

// benchCeiling compresses bodies with one reused writer and buffer: the
// cost of the compression alone. It returns the compressed size of one pass.
func benchCeiling(b *testing.B, bodies [][]byte, level int) int {
	zw, err := gzip.NewWriterLevel(nil, level)
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	total, in := 0, 0
	for _, body := range bodies {
		in += len(body)
	}
	b.SetBytes(int64(in))
	b.ReportAllocs()
	var cpu cpuMeter
	b.ResetTimer()
	cpu.start()
	for range b.N {
		total = 0
		for _, body := range bodies {
			buf.Reset()
			zw.Reset(&buf)
			if _, err := zw.Write(body); err != nil {
				b.Fatal(err)
			}
			if err := zw.Close(); err != nil {
				b.Fatal(err)
			}
			total += buf.Len()
		}
	}
	cpu.stop()
	cpu.report(b)
	return total
}

// runOnCopies runs op b.N times, each on a fresh copy of src. Copies are
// made in chunks with the timer stopped, so copying is excluded from both
// the time and the allocations, without stopping the timer around every op.
func runOnCopies(b *testing.B, src plog.Logs, op func(plog.Logs)) {
	in := 0
	for _, body := range rawBodies(src) {
		in += len(body)
	}
	const chunkBytes = 64 << 20
	perCopy := in + 300*src.LogRecordCount() // bodies plus pdata overhead
	chunk := max(1, chunkBytes/perCopy)
	copies := make([]plog.Logs, 0, min(chunk, b.N))
	b.SetBytes(int64(in))
	b.ReportAllocs()
	var cpu cpuMeter
	b.ResetTimer()
	for done := 0; done < b.N; {
		b.StopTimer()
		clear(copies)
		copies = copies[:0]
		for range min(chunk, b.N-done) {
			ld := plog.NewLogs()
			src.CopyTo(ld)
			copies = append(copies, ld)
		}
		runtime.GC() // collect the previous chunk now rather than in the timed loop
		b.StartTimer()
		cpu.start()
		for _, ld := range copies {
			op(ld)
		}
		cpu.stop()
		done += len(copies)
	}
	cpu.report(b)
}

// cpuMeter adds up process CPU time over the timed sections of a benchmark
// and reports it as cpu-ns/op next to the wall-clock ns/op.
type cpuMeter struct {
	total, at time.Duration
	ok        bool
}

func (m *cpuMeter) start() { m.at, m.ok = testkit.ProcessCPUTime() }

func (m *cpuMeter) stop() {
	if now, ok := testkit.ProcessCPUTime(); ok && m.ok {
		m.total += now - m.at
	}
}

func (m *cpuMeter) report(b *testing.B) {
	if m.ok {
		b.ReportMetric(float64(m.total.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

func rawBodies(ld plog.Logs) [][]byte {
	var bodies [][]byte
	rls := ld.ResourceLogs()
	for i := range rls.Len() {
		sls := rls.At(i).ScopeLogs()
		for j := range sls.Len() {
			lrs := sls.At(j).LogRecords()
			for k := range lrs.Len() {
				bodies = append(bodies, []byte(lrs.At(k).Body().Str()))
			}
		}
	}
	return bodies
}

// accessLogBatch builds one batch of records whose Str bodies are exactly
// size bytes of nginx/Apache combined-format access log, generated
// deterministically: lines joined by '\n' and cut at size.
func accessLogBatch(records, size int) plog.Logs {
	r := rand.New(rand.NewPCG(uint64(records), uint64(size)))
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", "nginx")
	lrs := rl.ScopeLogs().AppendEmpty().LogRecords()
	ts := time.Date(2025, 10, 10, 13, 55, 36, 0, time.UTC)
	var body []byte
	for range records {
		body = body[:0]
		for len(body) < size {
			if len(body) > 0 {
				body = append(body, '\n')
			}
			ts = ts.Add(time.Duration(r.IntN(2000)) * time.Millisecond)
			body = appendAccessLogLine(body, r, ts)
		}
		lr := lrs.AppendEmpty()
		lr.SetTimestamp(pcommon.NewTimestampFromTime(ts))
		lr.Body().SetStr(string(body[:size]))
	}
	return ld
}

var (
	methods    = []string{"GET", "GET", "GET", "GET", "GET", "GET", "POST", "POST", "PUT", "DELETE", "HEAD"}
	statuses   = []int{200, 200, 200, 200, 200, 200, 200, 304, 304, 301, 404, 404, 500, 201, 204}
	userAgents = []string{
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/129.0.0.0 Safari/537.36",
		"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15",
		"Mozilla/5.0 (X11; Linux x86_64; rv:131.0) Gecko/20100101 Firefox/131.0",
		"Mozilla/5.0 (iPhone; CPU iPhone OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Mobile/15E148 Safari/604.1",
		"Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/129.0.0.0 Mobile Safari/537.36",
		"curl/8.5.0",
		"Go-http-client/1.1",
		"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
		"kube-probe/1.31",
		"python-requests/2.32.3",
	}
	referers = []string{"-", "-", "-", "https://www.example.com/", "https://www.example.com/products", "https://www.google.com/", "https://shop.example.com/cart"}
	words    = []string{"shoes", "red", "jacket", "laptop", "phone", "case", "usb-c", "cable", "garden", "chair", "lamp", "book"}
)

func appendAccessLogLine(b []byte, r *rand.Rand, ts time.Time) []byte {
	if r.IntN(4) == 0 { // a quarter from a long tail of clients, the rest from a few busy ones
		b = fmt.Appendf(b, "%d.%d.%d.%d", 1+r.IntN(223), r.IntN(256), r.IntN(256), 1+r.IntN(254))
	} else {
		b = fmt.Appendf(b, "10.0.%d.%d", r.IntN(4), 1+r.IntN(40))
	}
	b = append(b, " - - ["...)
	b = ts.AppendFormat(b, "02/Jan/2006:15:04:05 -0700")
	b = append(b, "] \""...)
	b = append(b, methods[r.IntN(len(methods))]...)
	b = append(b, ' ')
	switch r.IntN(7) {
	case 0:
		b = fmt.Appendf(b, "/api/v1/users/%d", r.IntN(100000))
	case 1:
		b = fmt.Appendf(b, "/api/v1/orders/%d/items?limit=%d", r.IntN(1000000), 10*(1+r.IntN(5)))
	case 2:
		b = fmt.Appendf(b, "/static/js/app.%08x.js", r.Uint32())
	case 3:
		b = fmt.Appendf(b, "/search?q=%s+%s&page=%d", words[r.IntN(len(words))], words[r.IntN(len(words))], 1+r.IntN(9))
	case 4:
		b = fmt.Appendf(b, "/images/products/%d/%d.jpg", r.IntN(5000), r.IntN(8))
	case 5:
		b = append(b, "/healthz"...)
	default:
		b = fmt.Appendf(b, "/products/%s-%d", words[r.IntN(len(words))], r.IntN(10000))
	}
	status := statuses[r.IntN(len(statuses))]
	b = fmt.Appendf(b, " HTTP/1.1\" %d %d \"%s\" \"%s\" rt=%d.%03d",
		status, r.IntN(60000), referers[r.IntN(len(referers))], userAgents[r.IntN(len(userAgents))],
		r.IntN(2), r.IntN(1000))
	return b
}

// reference implements the reference design, for comparison only: stdlib
// gzip writers at the default level from a sync.Pool, a new bytes.Buffer
// per record, the body copied out as []byte and the result copied in, and
// bodies that are neither Str nor Bytes removed with their records.
type reference struct {
	pool sync.Pool
}

func newReference() *reference {
	return &reference{pool: sync.Pool{New: func() any { return stdgzip.NewWriter(nil) }}}
}

func (r *reference) consumeLogs(ld plog.Logs) error {
	rls := ld.ResourceLogs()
	for i := range rls.Len() {
		sls := rls.At(i).ScopeLogs()
		for j := range sls.Len() {
			lrs := sls.At(j).LogRecords()
			lrs.RemoveIf(func(lr plog.LogRecord) bool {
				t := lr.Body().Type()
				return t != pcommon.ValueTypeStr && t != pcommon.ValueTypeBytes
			})
			for k := range lrs.Len() {
				body := lrs.At(k).Body()
				var data []byte
				if body.Type() == pcommon.ValueTypeStr {
					data = []byte(body.Str())
				} else {
					data = body.Bytes().AsRaw()
				}
				gz, err := r.compress(data)
				if err != nil {
					return err
				}
				if err := body.FromRaw(gz); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (r *reference) compress(data []byte) ([]byte, error) {
	var buf bytes.Buffer
	w := r.pool.Get().(*stdgzip.Writer)
	defer r.pool.Put(w)
	w.Reset(&buf)
	if _, err := w.Write(data); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
