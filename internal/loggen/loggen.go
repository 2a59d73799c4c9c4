// Package loggen writes deterministic synthetic logs for samples, tests and benchmarks:
// Combined Log Format access logs in a chosen UTC offset, the Logtail multiline workload,
// and a Java application log with stack traces. The same seed always gives the same bytes.
package loggen

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"time"
)

// CLF describes one access log.
type CLF struct {
	Start  time.Time     // first instant (UTC)
	Span   time.Duration // instants spread evenly, with jitter, over [Start, Start+Span)
	Lines  int
	Offset int // UTC offset in seconds the timestamps are written in, e.g. +3600 for +0100
	// MalformedEvery > 0 makes every n-th line (on average) unparsable: its timestamp is garbled.
	MalformedEvery int
	Seed           uint64
}

var (
	methods = []string{"GET", "GET", "GET", "GET", "POST", "HEAD", "PUT", "DELETE"}
	paths   = []string{"/", "/index.html", "/api/v1/orders", "/api/v1/users/", "/static/app.js",
		"/static/style.css", "/images/logo.png", "/search?q=", "/checkout", "/healthz"}
	statuses = []int{200, 200, 200, 200, 200, 304, 301, 404, 500, 201}
	agents   = []string{
		"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36",
		"Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15",
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:127.0) Gecko/20100101 Firefox/127.0",
		"curl/8.5.0",
		"Go-http-client/1.1",
	}
	referers = []string{"-", "https://www.example.com/", "https://www.example.com/shop", "https://search.example.org/?q=logs"}
	months   = [...]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
)

// WriteCLF writes c.Lines lines of Combined Log Format, non-decreasing in time.
func WriteCLF(w io.Writer, c CLF) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	r := rand.New(rand.NewPCG(c.Seed, 0x5eed))
	zone := time.FixedZone("", c.Offset)
	step := int64(1)
	if c.Lines > 0 {
		step = max(int64(c.Span)/int64(c.Lines), 1)
	}
	buf := make([]byte, 0, 512)
	at := c.Start.UnixNano()
	for range c.Lines {
		at += r.Int64N(2 * step)
		t := time.Unix(0, at).In(zone)
		buf = buf[:0]
		buf = fmt.Appendf(buf, "%d.%d.%d.%d - ", 10+r.IntN(200), r.IntN(256), r.IntN(256), 1+r.IntN(254))
		if r.IntN(4) == 0 {
			buf = fmt.Appendf(buf, "user%d ", r.IntN(100))
		} else {
			buf = append(buf, "- "...)
		}
		if c.MalformedEvery > 0 && r.IntN(c.MalformedEvery) == 0 {
			buf = append(buf, "[garbled:time] "...)
		} else {
			buf = appendCLFTime(buf, t)
		}
		path, sep := paths[r.IntN(len(paths))], "?v="
		if last := path[len(path)-1]; last == '/' || last == '=' {
			sep = ""
		}
		buf = fmt.Appendf(buf, "\"%s %s%s%d HTTP/1.1\" %d %d \"%s\" \"%s\"\n",
			methods[r.IntN(len(methods))], path, sep, r.IntN(10000), statuses[r.IntN(len(statuses))],
			200+r.IntN(50000), referers[r.IntN(len(referers))], agents[r.IntN(len(agents))])
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// appendCLFTime appends "[02/Jan/2006:15:04:05 -0700] ".
func appendCLFTime(b []byte, t time.Time) []byte {
	_, off := t.Zone()
	sign := byte('+')
	if off < 0 {
		sign, off = '-', -off
	}
	return fmt.Appendf(b, "[%02d/%s/%04d:%02d:%02d:%02d %c%02d%02d] ",
		t.Day(), months[t.Month()-1], t.Year(), t.Hour(), t.Minute(), t.Second(), sign, off/3600, off%3600/60)
}

// LogtailContinuation is the stack-frame line of the Logtail article's workload.
const LogtailContinuation = "    at com.example.myproject.Book.getTitle(Book.java:16)"

// WriteLogtail writes the Logtail article's multiline workload: entries of a ~1100 B first
// line "cnt:N,thread:2,log:..." followed by three stack-frame lines.
func WriteLogtail(w io.Writer, entries int) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	filler := make([]byte, 1080)
	for i := range filler {
		filler[i] = 'a' + byte(i%26)
	}
	buf := make([]byte, 0, 2048)
	for n := range entries {
		buf = append(buf[:0], "cnt:"...)
		buf = strconv.AppendInt(buf, int64(n), 10)
		buf = append(buf, ",thread:2,log:"...)
		buf = append(buf, filler...)
		buf = append(buf, '\n')
		for range 3 {
			buf = append(buf, LogtailContinuation...)
			buf = append(buf, '\n')
		}
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// JavaApp describes an application log with ISO 8601 timestamps and occasional stack traces.
type JavaApp struct {
	Start   time.Time
	Span    time.Duration
	Entries int
	Zone    *time.Location // timestamps are written without an offset, in this zone
	Seed    uint64
}

var (
	levels   = []string{"INFO", "INFO", "INFO", "DEBUG", "WARN", "ERROR"}
	messages = []string{"order accepted id=%d", "cache miss key=user:%d", "request served in %d ms",
		"retrying upstream call attempt=%d", "payment failed for order %d"}
	frames = []string{
		"\tat com.example.shop.PaymentService.charge(PaymentService.java:%d)",
		"\tat com.example.shop.OrderController.checkout(OrderController.java:%d)",
		"\tat java.base/java.util.concurrent.ThreadPoolExecutor.runWorker(ThreadPoolExecutor.java:%d)",
		"\tat java.base/java.lang.Thread.run(Thread.java:%d)",
	}
)

// WriteJavaApp writes entries that start with "2006-01-02 15:04:05.000 LEVEL [thread] ...";
// ERROR entries carry an exception line and stack frames (multiline).
func WriteJavaApp(w io.Writer, j JavaApp) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	r := rand.New(rand.NewPCG(j.Seed, 0x1a7a))
	zone := j.Zone
	if zone == nil {
		zone = time.UTC
	}
	step := max(int64(j.Span)/int64(max(j.Entries, 1)), 1)
	at := j.Start.UnixNano()
	for range j.Entries {
		at += r.Int64N(2 * step)
		t := time.Unix(0, at).In(zone)
		level := levels[r.IntN(len(levels))]
		msg := messages[r.IntN(len(messages))]
		fmt.Fprintf(bw, "%s %-5s [worker-%d] "+msg+"\n", t.Format("2006-01-02 15:04:05.000"), level, r.IntN(8), r.IntN(100000))
		if level == "ERROR" {
			fmt.Fprintf(bw, "java.lang.IllegalStateException: upstream returned %d\n", 500+r.IntN(4))
			for _, f := range frames {
				fmt.Fprintf(bw, f+"\n", 10+r.IntN(400))
			}
		}
	}
	return bw.Flush()
}

// CLFText returns at least size bytes of Combined Log Format lines (whole lines, +0100), the
// same for the same size: test and benchmark input for packages that cut or decode text.
func CLFText(size int) []byte {
	var b bytes.Buffer
	start := time.Date(2026, 3, 15, 0, 0, 0, 0, time.UTC)
	for seed := uint64(1); b.Len() < size; seed++ {
		lines := max((size-b.Len())/150, 1)
		if err := WriteCLF(&b, CLF{Start: start, Span: time.Hour, Lines: lines, Offset: 3600, Seed: seed}); err != nil {
			panic(err) // a bytes.Buffer does not fail
		}
	}
	return b.Bytes()
}
