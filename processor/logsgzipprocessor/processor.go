package logsgzipprocessor // import "github.com/mergelog/otelcol-mergelog/processor/logsgzipprocessor"

import (
	"context"
	"errors"
	"runtime"
	"sync"

	"github.com/klauspost/compress/gzip"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/processor"
	"go.uber.org/zap"
)

const (
	// markValue is what mark_attribute is set to on compressed records.
	markValue = "gzip"

	// recordCost is the fixed work of compressing one body (writer reset,
	// header, trailer, Huffman tables) in body bytes: at level 1 a 50 B body
	// takes about 1.3 µs and each further byte about 5 ns. It lets batches of
	// many small records be split as fairly as batches of few large ones.
	recordCost = 256
	// minWorkerWeight is the least work, in bytes as counted by weight, worth
	// a goroutine of its own: well above the cost of starting one and of
	// waking an idle core, so small batches stay on the calling goroutine.
	minWorkerWeight = 64 << 10

	// Pooled buffers larger than this are dropped rather than kept, so one
	// huge batch does not pin its memory for the life of the process.
	maxPooledBytes   = 4 << 20
	maxPooledRecords = 1 << 16
)

var errReadOnly = errors.New("logsgzip: cannot compress read-only logs; the pipeline must hand this processor its own copy")

// compressor is one goroutine's working set. It is reused across batches
// through a pool per level, so in steady state compressing allocates only
// the final body bytes.
type compressor struct {
	zw   *gzip.Writer
	out  appendWriter // compressed bodies of the current range, back to back
	json []byte       // scratch for structured bodies serialised to JSON
	done []compressed // records of the current range whose body is in out
}

// compressed records that recs[idx]'s compressed body ends at out[end].
type compressed struct {
	idx int
	end int
}

// appendWriter is an io.Writer that never fails and never shrinks.
type appendWriter struct{ b []byte }

func (w *appendWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

// compressorPools holds one pool per gzip level, from -3 (stateless) to 9.
var compressorPools [gzip.BestCompression - gzip.StatelessCompression + 1]sync.Pool

func init() {
	for i := range compressorPools {
		level := i + gzip.StatelessCompression
		compressorPools[i].New = func() any {
			zw, err := gzip.NewWriterLevel(nil, level)
			if err != nil {
				panic(err) // unreachable: every level in the range is valid
			}
			return &compressor{zw: zw}
		}
	}
}

// recordLists pools the flat list of a batch's records.
var recordLists = sync.Pool{New: func() any { return new([]plog.LogRecord) }}

type logsGzip struct {
	logger     *zap.Logger
	tel        *telemetry
	pool       *sync.Pool
	minSize    int
	json       bool
	markAttr   string
	maxWorkers int
	// direct is whether bodies' bytes are read and set without copying (see
	// rawbytes.go); a field so tests can cover the fallback too.
	direct bool
	// write is (*gzip.Writer).Write; a field so tests can make records fail.
	write func(*gzip.Writer, []byte) (int, error)
}

func newLogsGzip(set processor.Settings, cfg *Config) (*logsGzip, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	tel, err := newTelemetry(set.TelemetrySettings)
	if err != nil {
		return nil, err
	}
	return &logsGzip{
		logger:     set.Logger,
		tel:        tel,
		pool:       &compressorPools[cfg.Level-gzip.StatelessCompression],
		minSize:    cfg.MinSize,
		json:       cfg.StructuredBodies == StructuredJSON,
		markAttr:   cfg.MarkAttribute,
		maxWorkers: cfg.MaxWorkers,
		direct:     directAccess,
		write:      (*gzip.Writer).Write,
	}, nil
}

func (p *logsGzip) processLogs(ctx context.Context, ld plog.Logs) (plog.Logs, error) {
	// Direct access bypasses pdata's own mutability check, so check here.
	if ld.IsReadOnly() {
		return ld, errReadOnly
	}
	list := recordLists.Get().(*[]plog.LogRecord)
	recs, weight := p.flatten((*list)[:0], ld)

	var st batchStats
	if workers := p.workers(len(recs), weight); workers > 1 {
		p.processParallel(recs, weight, workers, &st)
	} else {
		p.processRange(recs, &st)
	}

	if cap(recs) <= maxPooledRecords {
		clear(recs) // do not keep the batch alive from the pool
		*list = recs[:0]
		recordLists.Put(list)
	}
	p.tel.record(ctx, &st)
	return ld, nil
}

// flatten appends every record of ld to recs, so that work can be split into
// contiguous ranges whatever the resource and scope layout, and returns the
// total weight.
func (p *logsGzip) flatten(recs []plog.LogRecord, ld plog.Logs) ([]plog.LogRecord, int) {
	total := 0
	rls := ld.ResourceLogs()
	for i := range rls.Len() {
		sls := rls.At(i).ScopeLogs()
		for j := range sls.Len() {
			lrs := sls.At(j).LogRecords()
			for k := range lrs.Len() {
				lr := lrs.At(k)
				recs = append(recs, lr)
				total += p.weight(lr.Body())
			}
		}
	}
	return recs, total
}

// weight estimates the work to compress body, in bytes.
func (p *logsGzip) weight(body pcommon.Value) int {
	switch body.Type() {
	case pcommon.ValueTypeStr:
		return recordCost + len(body.Str())
	case pcommon.ValueTypeBytes:
		return recordCost + body.Bytes().Len()
	case pcommon.ValueTypeMap, pcommon.ValueTypeSlice:
		if p.json {
			return 2 * recordCost
		}
	}
	return 0
}

func (p *logsGzip) workers(records, weight int) int {
	w := runtime.GOMAXPROCS(0)
	if p.maxWorkers > 0 {
		w = min(w, p.maxWorkers)
	}
	return max(1, min(w, records, weight/minWorkerWeight))
}

// processParallel splits recs into contiguous ranges of about equal weight,
// one per worker; the calling goroutine takes the last range itself.
func (p *logsGzip) processParallel(recs []plog.LogRecord, total, workers int, st *batchStats) {
	stats := make([]batchStats, workers)
	var wg sync.WaitGroup
	share := total / workers
	start, acc, w := 0, 0, 0
	for i := range recs {
		if w == workers-1 {
			break
		}
		acc += p.weight(recs[i].Body())
		if acc >= share*(w+1) {
			r, s := recs[start:i+1], &stats[w]
			wg.Go(func() { p.processRange(r, s) })
			start, w = i+1, w+1
		}
	}
	p.processRange(recs[start:], &stats[w])
	wg.Wait()
	for i := range stats {
		st.add(&stats[i])
	}
}

// processRange compresses the bodies of recs into one scratch buffer, then
// hands each record its compressed body. Bodies are replaced only after all
// are compressed, so a Str body is read in place and never copied.
func (p *logsGzip) processRange(recs []plog.LogRecord, st *batchStats) {
	c := p.pool.Get().(*compressor)
	c.out.b, c.done = c.out.b[:0], c.done[:0]
	for i, lr := range recs {
		src, reason, ok := p.source(c, lr.Body())
		if !ok {
			st.skipped[reason]++
			continue
		}
		start := len(c.out.b)
		if err := p.compress(c, src); err != nil {
			// One bad record must not hold back the batch: it goes on as it was.
			c.out.b = c.out.b[:start]
			st.skipped[reasonError]++
			p.logger.Debug("Leaving log record body uncompressed", zap.Error(err), zap.Int("body_size", len(src)))
			continue
		}
		c.done = append(c.done, compressed{idx: i, end: len(c.out.b)})
		st.compressed++
		st.bytesIn += int64(len(src))
		st.bytesOut += int64(len(c.out.b) - start)
	}
	p.install(recs, c)

	if cap(c.out.b) > maxPooledBytes {
		c.out.b = nil
	}
	if cap(c.json) > maxPooledBytes {
		c.json = nil
	}
	p.pool.Put(c)
}

// source returns the bytes to compress for body, or why it stays unchanged.
func (p *logsGzip) source(c *compressor, body pcommon.Value) ([]byte, skipReason, bool) {
	var src []byte
	switch body.Type() {
	case pcommon.ValueTypeStr:
		src = stringBytes(body.Str())
	case pcommon.ValueTypeBytes:
		src = readBytes(body.Bytes(), p.direct)
	case pcommon.ValueTypeMap, pcommon.ValueTypeSlice:
		if !p.json {
			return nil, reasonStructured, false
		}
		c.json = appendJSON(c.json[:0], body, p.direct)
		src = c.json
	case pcommon.ValueTypeEmpty:
		return nil, reasonEmpty, false
	default:
		return nil, reasonScalar, false
	}
	switch {
	case len(src) == 0:
		return nil, reasonEmpty, false
	case len(src) >= 2 && src[0] == 0x1f && src[1] == 0x8b:
		return nil, reasonAlreadyGzip, false
	case len(src) < p.minSize:
		return nil, reasonTooSmall, false
	}
	return src, 0, true
}

// compress appends the gzip stream of src to c.out.
func (p *logsGzip) compress(c *compressor, src []byte) error {
	c.zw.Reset(&c.out)
	if _, err := p.write(c.zw, src); err != nil {
		return err
	}
	return c.zw.Close()
}

// install gives each compressed record its body from c.out.
func (p *logsGzip) install(recs []plog.LogRecord, c *compressor) {
	if len(c.done) == 0 {
		return
	}
	out := c.out.b
	if p.direct {
		// One exact-size allocation holds every compressed body of the range
		// (instead of one per record); each body gets its own window whose
		// capacity ends where it ends, so appending to one body reallocates
		// rather than overwriting the next.
		out = make([]byte, len(c.out.b))
		copy(out, c.out.b)
	}
	start := 0
	for _, d := range c.done {
		lr := recs[d.idx]
		setBytes(lr.Body(), out[start:d.end:d.end], p.direct)
		if p.markAttr != "" {
			lr.Attributes().PutStr(p.markAttr, markValue)
		}
		start = d.end
	}
}
