package node

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// The workload of VictoriaMetrics' log-collectors-benchmark (its log-generator): every pod
// writes JSON lines of about 216 bytes, each with a nanosecond timestamp, a message, a
// sequence number, and optional fields drawn with fixed chances from short value lists. Each
// second a pod writes that second's lines at once, through a 16 KiB buffer written out whenever
// less than 1 KiB of it is free, and once more at the end of the second.

// genField is an optional field of a line: present in percent of the lines, its value
// appended by value.
type genField struct {
	key     string
	percent int
	value   func(b []byte, r *rand.Rand) []byte
}

var genMessages = []string{
	"Request processed successfully", "User authentication completed", "Payment transaction initiated",
	"Database connection established", "Cache miss occurred", "Service health check passed",
	"API rate limit exceeded", "Session expired", "Data validation failed",
}

// genFields are the generator's optional fields, in its order, with its chances and values.
var genFields = []genField{
	{"level", 80, oneOf("DEBUG", "INFO", "WARN", "ERROR")},
	{"component", 90, oneOf("auth-service", "payment-service", "user-service", "notification-service")},
	{"method", 70, oneOf("GET", "POST", "PUT", "DELETE")},
	{"status_code", 85, numberOf(200, 201, 400, 401, 403, 404, 500, 503)},
	{"duration_ms", 75, numberFrom(10, 1000)},
	{"user_id", 60, prefixed("user_", 10000)},
	{"bytes_sent", 65, numberFrom(100, 10000)},
	{"environment", 15, oneOf("production", "staging", "development", "testing")},
	{"region", 20, oneOf("us-east-1", "us-west-2", "eu-central-1", "ap-southeast-1")},
	{"error_type", 10, oneOf("TimeoutError", "ConnectionError", "ValidationError", "AuthenticationError", "DatabaseError")},
	{"trace_id", 25, oneOf("trace-a1b2c3d4", "trace-e5f6g7h8", "trace-i9j0k1l2", "trace-m3n4o5p6")},
	{"protocol", 18, oneOf("HTTP/1.1", "HTTP/2", "gRPC", "WebSocket")},
}

// oneOf is a JSON string, one of words.
func oneOf(words ...string) func([]byte, *rand.Rand) []byte {
	return func(b []byte, r *rand.Rand) []byte {
		b = append(b, '"')
		b = append(b, words[r.IntN(len(words))]...)
		return append(b, '"')
	}
}

// numberOf is a JSON number, one of nums.
func numberOf(nums ...int) func([]byte, *rand.Rand) []byte {
	return func(b []byte, r *rand.Rand) []byte { return strconv.AppendInt(b, int64(nums[r.IntN(len(nums))]), 10) }
}

// numberFrom is a JSON number from lo to lo+n-1.
func numberFrom(lo, n int) func([]byte, *rand.Rand) []byte {
	return func(b []byte, r *rand.Rand) []byte { return strconv.AppendInt(b, int64(lo+r.IntN(n)), 10) }
}

// prefixed is a JSON string, prefix and a number below n.
func prefixed(prefix string, n int) func([]byte, *rand.Rand) []byte {
	return func(b []byte, r *rand.Rand) []byte {
		b = append(b, '"')
		b = append(b, prefix...)
		b = strconv.AppendInt(b, int64(r.IntN(n)), 10)
		return append(b, '"')
	}
}

// genLine appends one line, newline included: written at at, numbered seq.
func genLine(b []byte, r *rand.Rand, at time.Time, seq int) []byte {
	b = append(b, `{"generated_at":`...)
	b = strconv.AppendInt(b, at.UnixNano(), 10)
	b = append(b, `,"_msg":"`...)
	b = append(b, genMessages[r.IntN(len(genMessages))]...)
	b = append(b, `","sequence_id":`...)
	b = strconv.AppendInt(b, int64(seq), 10)
	for _, f := range genFields {
		if r.IntN(100) < f.percent {
			b = append(b, `,"`...)
			b = append(b, f.key...)
			b = append(b, `":`...)
			b = f.value(b, r)
		}
	}
	return append(b, "}\n"...)
}

// The generator's buffer and the room it keeps free.
const (
	genBufSize = 16 << 10
	genBufFree = 1 << 10
)

// genPod is the process of one pod of the workload, writing to its container's stdout. Its
// lines' sequence_id are index, index+pods, index+2·pods…: unique among all pods, so that the
// gateway tells every line apart by that number alone.
type genPod struct {
	c           *container
	index, pods int
	rate        int // lines per second
	rng         *rand.Rand
	buf         []byte
	pending     int          // lines in buf
	written     atomic.Int64 // lines written to the FIFO
	bytes       atomic.Int64
	late        atomic.Int64 // seconds whose lines took over a second to write (containerd fell behind)
}

func newGenPod(c *container, index, pods, rate int, seed uint64) *genPod {
	return &genPod{c: c, index: index, pods: pods, rate: rate, rng: rand.New(rand.NewPCG(seed, uint64(index))),
		buf: make([]byte, 0, genBufSize)}
}

// run writes seconds seconds' lines, the first at start, one second after the other, and
// stops early if ctx ends.
func (p *genPod) run(ctx context.Context, start time.Time, seconds int) error {
	interval := time.Second / time.Duration(p.rate)
	for sec := range seconds {
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(time.Until(start.Add(time.Duration(sec) * time.Second))):
		}
		now := time.Now()
		for i := p.rate - 1; i >= 0; i-- {
			seq := int(p.written.Load())*p.pods + p.pending*p.pods + p.index
			p.buf = genLine(p.buf, p.rng, now.Add(-time.Duration(i)*interval), seq)
			p.pending++
			if cap(p.buf)-len(p.buf) < genBufFree {
				if err := p.flush(); err != nil {
					return err
				}
			}
		}
		if err := p.flush(); err != nil {
			return err
		}
		if time.Since(now) > time.Second {
			p.late.Add(1)
		}
	}
	return nil
}

// flush writes the buffer to the container's stdout at once.
func (p *genPod) flush() error {
	if len(p.buf) == 0 {
		return nil
	}
	if _, err := p.c.stdout.Write(p.buf); err != nil {
		return err
	}
	p.written.Add(int64(p.pending))
	p.bytes.Add(int64(len(p.buf)))
	p.buf, p.pending = p.buf[:0], 0
	return nil
}

// The workload's lines are JSON objects of the generator's size (~216 B) that the gateway
// numbers by their sequence_id.
func TestGenLine(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var total int
	const n = 10000
	for seq := range n {
		line := genLine(nil, r, time.Now(), seq)
		total += len(line)
		var v map[string]any
		if err := json.Unmarshal(line, &v); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if got, ok := seqOfLine(string(line)); !ok || got != seq {
			t.Fatalf("%q: sequence_id %d %v", line, got, ok)
		}
	}
	if mean := total / n; mean < 200 || mean > 235 {
		t.Errorf("mean line %d B, the generator's is ~216", mean)
	}
}
