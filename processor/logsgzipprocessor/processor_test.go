package logsgzipprocessor

import (
	"bytes"
	stdgzip "compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/processor/processortest"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
	"github.com/mergelog/otelcol-mergelog/processor/logsgzipprocessor/internal/metadata"
)

func newTestProcessor(t testing.TB, mutate func(*Config)) (*logsGzip, *componenttest.Telemetry) {
	t.Helper()
	cfg := createDefaultConfig().(*Config)
	if mutate != nil {
		mutate(cfg)
	}
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { require.NoError(t, tel.Shutdown(context.Background())) })
	set := processortest.NewNopSettings(metadata.Type)
	set.TelemetrySettings = tel.NewTelemetrySettings()
	p, err := newLogsGzip(set, cfg)
	require.NoError(t, err)
	return p, tel
}

func process(t testing.TB, p *logsGzip, ld plog.Logs) {
	t.Helper()
	_, err := p.processLogs(context.Background(), ld)
	require.NoError(t, err)
}

// gunzip decodes with the standard library, to show the output is plain gzip.
func gunzip(t testing.TB, b []byte) string {
	t.Helper()
	zr, err := stdgzip.NewReader(bytes.NewReader(b))
	require.NoError(t, err)
	zr.Multistream(false)
	out, err := io.ReadAll(zr)
	require.NoError(t, err)
	return string(out)
}

// logsOf spreads one record per body setter over several resources and
// scopes, so that ranges cross ResourceLogs and ScopeLogs boundaries.
func logsOf(setters ...func(pcommon.Value)) plog.Logs {
	ld := plog.NewLogs()
	var lrs plog.LogRecordSlice
	for i, set := range setters {
		if i%7 == 0 {
			rl := ld.ResourceLogs().AppendEmpty()
			rl.Resource().Attributes().PutInt("resource", int64(i))
		}
		if i%3 == 0 || i%7 == 0 {
			rls := ld.ResourceLogs()
			lrs = rls.At(rls.Len() - 1).ScopeLogs().AppendEmpty().LogRecords()
		}
		set(lrs.AppendEmpty().Body())
	}
	return ld
}

func flat(ld plog.Logs) []plog.LogRecord {
	var recs []plog.LogRecord
	for _, rl := range ld.ResourceLogs().All() {
		for _, sl := range rl.ScopeLogs().All() {
			for _, lr := range sl.LogRecords().All() {
				recs = append(recs, lr)
			}
		}
	}
	return recs
}

func strBody(s string) func(pcommon.Value) { return func(v pcommon.Value) { v.SetStr(s) } }

func bytesBody(b []byte) func(pcommon.Value) {
	return func(v pcommon.Value) { v.SetEmptyBytes().FromRaw(b) }
}

func marshal(t testing.TB, ld plog.Logs) []byte {
	t.Helper()
	b, err := (&plog.ProtoMarshaler{}).MarshalLogs(ld)
	require.NoError(t, err)
	return b
}

func sumOf(t testing.TB, tel *componenttest.Telemetry, name string) map[string]int64 {
	t.Helper()
	m, err := tel.GetMetric(name)
	if err != nil {
		return map[string]int64{}
	}
	got := map[string]int64{}
	for _, dp := range m.Data.(metricdata.Sum[int64]).DataPoints {
		reason, _ := dp.Attributes.Value(attribute.Key("reason"))
		got[reason.AsString()] += dp.Value
	}
	return got
}

func randomBody(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	switch r.IntN(3) {
	case 0: // arbitrary bytes, including invalid UTF-8
		for i := range b {
			b[i] = byte(r.Uint32())
		}
	case 1: // compressible text
		const alphabet = "abc def GET /index.html 200 \n"
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
	default: // one repeated byte
		for i := range b {
			b[i] = 'x'
		}
	}
	return b
}

func TestDirectAccessAvailable(t *testing.T) {
	// With the pdata version this module pins, bodies are read and set
	// without copies; if this fails, pdata changed layout and the processor
	// silently runs on its slower fallback.
	assert.True(t, directAccess)
}

func TestRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var bodies [][]byte
	for _, n := range []int{0, 1, 2, 50, 500, 5000, 1 << 20} {
		bodies = append(bodies, randomBody(r, n), randomBody(r, n), randomBody(r, n))
	}
	for range 300 {
		bodies = append(bodies, randomBody(r, r.IntN(4000)))
	}
	bodies = append(bodies,
		[]byte("\xff\xfe invalid \xc3\x28 utf-8 \xed\xa0\x80 \x00"),
		[]byte{0x1f}, []byte{0x8b, 0x1f}, []byte{0x1f, 0x8b}, []byte{0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0xff})

	for _, direct := range []bool{true, false} {
		for _, asBytes := range []bool{false, true} {
			t.Run(fmt.Sprintf("direct=%v/bytes=%v", direct, asBytes), func(t *testing.T) {
				p, _ := newTestProcessor(t, nil)
				p.direct = direct
				setters := make([]func(pcommon.Value), len(bodies))
				for i, b := range bodies {
					if asBytes {
						setters[i] = bytesBody(b)
					} else {
						setters[i] = strBody(string(b))
					}
				}
				ld := logsOf(setters...)
				process(t, p, ld)

				recs := flat(ld)
				require.Len(t, recs, len(bodies))
				for i, want := range bodies {
					body := recs[i].Body()
					if len(want) == 0 || bytes.HasPrefix(want, []byte{0x1f, 0x8b}) {
						// Left exactly as it was.
						if asBytes {
							require.Equal(t, pcommon.ValueTypeBytes, body.Type())
							require.Equal(t, string(want), string(body.Bytes().AsRaw()))
						} else {
							require.Equal(t, string(want), body.Str())
						}
						continue
					}
					require.Equal(t, pcommon.ValueTypeBytes, body.Type(), "record %d", i)
					require.Equal(t, string(want), gunzip(t, body.Bytes().AsRaw()), "record %d", i)
				}
			})
		}
	}
}

func TestEveryLevelRoundTrips(t *testing.T) {
	body := strings.Repeat("10.0.0.1 - - GET /index.html 200 512\n", 50)
	for level := gzip.StatelessCompression; level <= gzip.BestCompression; level++ {
		p, _ := newTestProcessor(t, func(c *Config) { c.Level = level })
		ld := logsOf(strBody(body), strBody("x"))
		process(t, p, ld)
		for i, want := range []string{body, "x"} {
			assert.Equal(t, want, gunzip(t, flat(ld)[i].Body().Bytes().AsRaw()), "level %d", level)
		}
	}
}

func TestBodyTypes(t *testing.T) {
	types := []struct {
		name string
		set  func(pcommon.Value)
		// For structured_bodies keep and json: the skip reason, or "" if the
		// body is compressed, and then what it decompresses to.
		keepReason, jsonReason string
		want                   string
	}{
		{name: "Str", set: strBody("hello <world> & \"you\""), want: "hello <world> & \"you\""},
		{name: "Bytes", set: bytesBody([]byte{0, 1, 2, 0xff}), want: "\x00\x01\x02\xff"},
		{name: "Map", set: func(v pcommon.Value) {
			m := v.SetEmptyMap()
			m.PutStr("z", "<last>")
			m.PutInt("a", 1)
			m.PutEmptySlice("s").AppendEmpty().SetBool(true)
		}, keepReason: "structured", want: `{"z":"<last>","a":1,"s":[true]}`},
		{name: "Slice", set: func(v pcommon.Value) {
			s := v.SetEmptySlice()
			s.AppendEmpty().SetDouble(1.5)
			s.AppendEmpty().SetStr("two")
			s.AppendEmpty()
		}, keepReason: "structured", want: `[1.5,"two",null]`},
		{name: "Int", set: func(v pcommon.Value) { v.SetInt(42) }, keepReason: "scalar", jsonReason: "scalar"},
		{name: "Double", set: func(v pcommon.Value) { v.SetDouble(4.2) }, keepReason: "scalar", jsonReason: "scalar"},
		{name: "Bool", set: func(v pcommon.Value) { v.SetBool(true) }, keepReason: "scalar", jsonReason: "scalar"},
		{name: "Empty", set: func(pcommon.Value) {}, keepReason: "empty", jsonReason: "empty"},
		{name: "EmptyStr", set: strBody(""), keepReason: "empty", jsonReason: "empty"},
		{name: "EmptyBytes", set: bytesBody(nil), keepReason: "empty", jsonReason: "empty"},
	}
	for _, mode := range []string{StructuredKeep, StructuredJSON} {
		for _, direct := range []bool{true, false} {
			for _, tt := range types {
				t.Run(fmt.Sprintf("%s/direct=%v/%s", mode, direct, tt.name), func(t *testing.T) {
					p, tel := newTestProcessor(t, func(c *Config) { c.StructuredBodies = mode })
					p.direct = direct
					ld := logsOf(tt.set)
					orig := plog.NewLogs()
					ld.CopyTo(orig)
					process(t, p, ld)

					reason := tt.keepReason
					if mode == StructuredJSON {
						reason = tt.jsonReason
					}
					recs := flat(ld)
					require.Len(t, recs, 1, "records are never dropped")
					if reason != "" {
						assert.Equal(t, marshal(t, orig), marshal(t, ld), "left unchanged")
						assert.Equal(t, map[string]int64{reason: 1}, sumOf(t, tel, "otelcol_processor_logsgzip_records_skipped"))
						return
					}
					body := recs[0].Body()
					require.Equal(t, pcommon.ValueTypeBytes, body.Type())
					assert.Equal(t, tt.want, gunzip(t, body.Bytes().AsRaw()))
					assert.Equal(t, map[string]int64{"": 1}, sumOf(t, tel, "otelcol_processor_logsgzip_records_compressed"))
				})
			}
		}
	}
}

// mixedLogs has every kind of body, some already compressed.
func mixedLogs(t testing.TB) plog.Logs {
	return logsOf(
		strBody("GET /a 200"), bytesBody([]byte("GET /b 404")), bytesBody(testkit.Compress(t, testkit.Gzip, []byte("done before"))),
		strBody(""), func(v pcommon.Value) { v.SetEmptyMap().PutStr("k", "v") },
		func(v pcommon.Value) { v.SetEmptySlice().AppendEmpty().SetInt(7) },
		func(v pcommon.Value) { v.SetInt(1) }, func(pcommon.Value) {}, strBody("tiny"),
		strBody(strings.Repeat("a long enough body ", 20)),
	)
}

func TestIdempotent(t *testing.T) {
	for _, mode := range []string{StructuredKeep, StructuredJSON} {
		t.Run(mode, func(t *testing.T) {
			p, tel := newTestProcessor(t, func(c *Config) {
				c.StructuredBodies = mode
				c.MarkAttribute = "encoding"
				c.MinSize = 8
			})
			ld := mixedLogs(t)
			process(t, p, ld)
			once := marshal(t, ld)
			compressed := sumOf(t, tel, "otelcol_processor_logsgzip_records_compressed")[""]
			require.Positive(t, compressed)

			process(t, p, ld)
			assert.Equal(t, once, marshal(t, ld), "processing twice equals processing once")
			assert.Equal(t, compressed, sumOf(t, tel, "otelcol_processor_logsgzip_records_compressed")[""],
				"nothing is compressed the second time")
		})
	}
}

func TestMinSize(t *testing.T) {
	p, tel := newTestProcessor(t, func(c *Config) { c.MinSize = 50 })
	short, long := strings.Repeat("s", 49), strings.Repeat("l", 50)
	ld := logsOf(strBody(short), strBody(long))
	process(t, p, ld)
	recs := flat(ld)
	assert.Equal(t, short, recs[0].Body().Str())
	assert.Equal(t, long, gunzip(t, recs[1].Body().Bytes().AsRaw()))
	assert.Equal(t, map[string]int64{"too_small": 1}, sumOf(t, tel, "otelcol_processor_logsgzip_records_skipped"))
}

func TestMarkAttribute(t *testing.T) {
	p, _ := newTestProcessor(t, func(c *Config) { c.MarkAttribute = "log.body.encoding" })
	ld := logsOf(strBody("compress me"), func(v pcommon.Value) { v.SetInt(3) }, strBody(""))
	process(t, p, ld)
	recs := flat(ld)
	v, ok := recs[0].Attributes().Get("log.body.encoding")
	require.True(t, ok)
	assert.Equal(t, "gzip", v.Str())
	for _, lr := range recs[1:] {
		assert.Equal(t, 0, lr.Attributes().Len(), "only compressed records are marked")
	}

	p, _ = newTestProcessor(t, nil)
	ld = logsOf(strBody("compress me"))
	process(t, p, ld)
	assert.Equal(t, 0, flat(ld)[0].Attributes().Len(), "no mark by default")
}

func TestFailingRecordDoesNotHoldBackBatch(t *testing.T) {
	for _, direct := range []bool{true, false} {
		t.Run(fmt.Sprintf("direct=%v", direct), func(t *testing.T) {
			p, tel := newTestProcessor(t, nil)
			p.direct = direct
			core, logs := observer.New(zapcore.DebugLevel)
			p.logger = zap.New(core)
			p.write = func(zw *gzip.Writer, b []byte) (int, error) {
				if bytes.Contains(b, []byte("poison")) {
					return 0, errors.New("injected failure")
				}
				return zw.Write(b)
			}
			ld := logsOf(strBody("first"), strBody("poison pill"), bytesBody([]byte("poison bytes")), strBody("last"))
			process(t, p, ld)

			recs := flat(ld)
			require.Len(t, recs, 4)
			assert.Equal(t, "first", gunzip(t, recs[0].Body().Bytes().AsRaw()))
			assert.Equal(t, "poison pill", recs[1].Body().Str())
			assert.Equal(t, []byte("poison bytes"), recs[2].Body().Bytes().AsRaw())
			assert.Equal(t, "last", gunzip(t, recs[3].Body().Bytes().AsRaw()))
			assert.Equal(t, map[string]int64{"error": 2}, sumOf(t, tel, "otelcol_processor_logsgzip_records_skipped"))
			assert.Equal(t, 2, logs.FilterMessage("Leaving log record body uncompressed").FilterLevelExact(zapcore.DebugLevel).Len())
		})
	}
}

func TestReadOnlyLogs(t *testing.T) {
	p, _ := newTestProcessor(t, nil)
	ld := logsOf(strBody("x"), bytesBody([]byte("y")))
	ld.MarkReadOnly()
	_, err := p.processLogs(context.Background(), ld)
	assert.ErrorIs(t, err, errReadOnly)
	assert.Equal(t, "x", flat(ld)[0].Body().Str())
}

func TestTelemetry(t *testing.T) {
	p, tel := newTestProcessor(t, func(c *Config) { c.MinSize = 5 })
	ld := mixedLogs(t)
	var in int64
	for _, lr := range flat(ld) {
		if s := lr.Body().Str(); len(s) >= 5 {
			in += int64(len(s))
		}
	}
	in += int64(len("GET /b 404"))
	process(t, p, ld)
	var out int64
	for _, lr := range flat(ld)[:2] {
		out += int64(lr.Body().Bytes().Len())
	}
	out += int64(flat(ld)[9].Body().Bytes().Len())

	assert.Equal(t, map[string]int64{"": 3}, sumOf(t, tel, "otelcol_processor_logsgzip_records_compressed"))
	assert.Equal(t, map[string]int64{
		"already_gzip": 1, "empty": 2, "structured": 2, "scalar": 1, "too_small": 1,
	}, sumOf(t, tel, "otelcol_processor_logsgzip_records_skipped"))
	assert.Equal(t, map[string]int64{"": in}, sumOf(t, tel, "otelcol_processor_logsgzip_bytes_in"))
	assert.Equal(t, map[string]int64{"": out}, sumOf(t, tel, "otelcol_processor_logsgzip_bytes_out"))

	// Counters accumulate over batches.
	process(t, p, logsOf(strBody("another one")))
	assert.Equal(t, map[string]int64{"": 4}, sumOf(t, tel, "otelcol_processor_logsgzip_records_compressed"))
}

// bigMixedLogs is heavy enough to be split across workers, with uneven
// body sizes and types so ranges have unequal record counts.
func bigMixedLogs(seed uint64, records int) plog.Logs {
	r := rand.New(rand.NewPCG(seed, 7))
	setters := make([]func(pcommon.Value), records)
	for i := range setters {
		switch r.IntN(10) {
		case 0:
			setters[i] = func(v pcommon.Value) { v.SetEmptyMap().PutInt("i", int64(i)) }
		case 1:
			setters[i] = bytesBody(randomBody(r, r.IntN(20000)))
		default:
			setters[i] = strBody(string(randomBody(r, r.IntN(2000))))
		}
	}
	return logsOf(setters...)
}

func TestParallelMatchesSerial(t *testing.T) {
	serial, serialTel := newTestProcessor(t, func(c *Config) {
		c.MaxWorkers = 1
		c.StructuredBodies = StructuredJSON
	})
	want := bigMixedLogs(1, 3000)
	require.Equal(t, 1, serial.workers(want.LogRecordCount(), 1<<30))
	process(t, serial, want)

	for _, workers := range []int{2, 3, 5, 16} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			p, tel := newTestProcessor(t, func(c *Config) { c.StructuredBodies = StructuredJSON })
			ld := bigMixedLogs(1, 3000)
			// Call the split directly: GOMAXPROCS may be lower than workers.
			var st batchStats
			recs, weight := p.flatten(nil, ld)
			p.processParallel(recs, weight, workers, &st)
			p.tel.record(context.Background(), &st)

			assert.Equal(t, marshal(t, want), marshal(t, ld))
			for _, name := range []string{"records_compressed", "records_skipped", "bytes_in", "bytes_out"} {
				name = "otelcol_processor_logsgzip_" + name
				assert.Equal(t, sumOf(t, serialTel, name), sumOf(t, tel, name), name)
			}
		})
	}
}

func TestWorkers(t *testing.T) {
	p, _ := newTestProcessor(t, func(c *Config) { c.MaxWorkers = 2 })
	assert.Equal(t, 1, p.workers(100, 100*(recordCost+50)), "small batches stay on the caller")
	assert.Equal(t, 1, p.workers(1, 1<<30), "one record is never split")
	if gmp := runtime.GOMAXPROCS(0); gmp >= 2 {
		assert.Equal(t, 2, p.workers(10000, 1<<30), "bounded by max_workers")
	}
	p.maxWorkers = 0
	assert.Equal(t, min(runtime.GOMAXPROCS(0), 3), p.workers(10000, 3*minWorkerWeight), "bounded by work")
}

func TestConcurrentConsumers(t *testing.T) {
	sink := new(consumertest.LogsSink)
	p, err := NewFactory().CreateLogs(context.Background(), processortest.NewNopSettings(metadata.Type), createDefaultConfig(), sink)
	require.NoError(t, err)

	const goroutines, batches = 8, 10
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for b := range batches {
				records := 10
				if b%3 == 0 {
					records = 400 // large enough to be split across workers
				}
				ld := bigMixedLogs(uint64(g*batches+b), records)
				assert.NoError(t, p.ConsumeLogs(context.Background(), ld))
			}
		})
	}
	wg.Wait()

	require.Len(t, sink.AllLogs(), goroutines*batches)
	for _, ld := range sink.AllLogs() {
		for _, lr := range flat(ld) {
			if body := lr.Body(); body.Type() == pcommon.ValueTypeBytes && body.Bytes().Len() > 0 {
				assert.Equal(t, []byte{0x1f, 0x8b}, body.Bytes().AsRaw()[:2])
			}
		}
	}
	require.NoError(t, p.Shutdown(context.Background()))
}

func TestCompressedBodiesAreIndependent(t *testing.T) {
	// Compressed bodies of one range share a backing array; growing or
	// overwriting one must not touch its neighbour.
	p, _ := newTestProcessor(t, nil)
	ld := logsOf(strBody("first body"), strBody("second body"))
	process(t, p, ld)
	recs := flat(ld)
	first := recs[0].Body().Bytes()
	first.Append(1, 2, 3)
	first.SetAt(0, 0)
	recs[0].Body().Bytes().FromRaw(bytes.Repeat([]byte{9}, 5))
	assert.Equal(t, "second body", gunzip(t, recs[1].Body().Bytes().AsRaw()))
}
