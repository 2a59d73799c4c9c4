package multiline

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mergelog/otelcol-mergelog/internal/longbuf"
	"github.com/mergelog/otelcol-mergelog/internal/stacktrace"
)

// TestDetect: traces join, Maybe lines that nothing confirms go out on their own (at the next
// line and at Flush), each entry with the end offset of its last line, and the caps cut traces.
func TestDetect(t *testing.T) {
	trace := []string{"java.lang.IllegalStateException: boom", "second line", "\tat A.a(A.java:1)", "\tat B.b(B.java:2)"}
	tests := []struct {
		name  string
		cfg   Config
		lines []string
		want  []string
	}{
		{"trace", Config{}, append([]string{"INFO before"}, append(trace, "INFO after")...),
			[]string{"INFO before", strings.Join(trace, "\n"), "INFO after"}},
		{"unconfirmed at the next line", Config{}, []string{"Error: x", "  detail", "INFO after"},
			[]string{"Error: x", "  detail", "INFO after"}},
		{"unconfirmed at Flush", Config{}, []string{"INFO before", "  indented", "  indented too"},
			[]string{"INFO before", "  indented", "  indented too"}},
		{"max_lines cuts a trace", Config{MaxLines: 2}, trace,
			[]string{strings.Join(trace[:2], "\n"), strings.Join(trace[2:], "\n")}},
		{"max_log_size cuts a trace", Config{MaxBytes: 50}, trace,
			// Cut at exactly 50 bytes (the separator is the 50th), as in the other modes.
			[]string{"java.lang.IllegalStateException: boom\nsecond line\n", "\tat A.a(A.java:1)\n\tat B.b(B.java:2)"}},
		{"truncate keeps the start of a trace", Config{MaxBytes: 40, Truncate: true}, trace,
			[]string{"java.lang.IllegalStateException: boom\nse"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.Detect = stacktrace.All
			got, stats := join(t, tt.cfg, tt.lines)
			lineEnds := ends(tt.lines)
			var texts []string
			for _, e := range got {
				texts = append(texts, e.Text)
				// The entry's last line is the one whose end is the entry's end.
				assert.Contains(t, lineEnds, e.End, "entry %q", e.Text)
			}
			assert.Equal(t, tt.want, texts)
			if tt.cfg.MaxLines > 0 || tt.cfg.MaxBytes > 0 && !tt.cfg.Truncate {
				assert.EqualValues(t, 1, stats.Split)
			}
		})
	}
}

// TestDetectHoldsEnd: while a trace is open, no entry carries an end past its first line, so
// a reader of the end offsets does not pass it.
func TestDetectHoldsEnd(t *testing.T) {
	var ends []int64
	j, err := New(Config{Detect: stacktrace.All}, func(_ []byte, end int64) { ends = append(ends, end) })
	assert.NoError(t, err)
	j.Add([]byte("INFO a"), 7)
	j.Add([]byte("Traceback (most recent call last):"), 42)
	j.Add([]byte(`  File "x.py", line 1, in <module>`), 77)
	assert.Equal(t, []int64{7}, ends)
	assert.True(t, j.Pending())
	j.Flush()
	assert.Equal(t, []int64{7, 77}, ends)
}

// FuzzDetect is FuzzJoin's check on detect mode, from inputs shaped like traces.
func FuzzDetect(f *testing.F) {
	f.Add([]byte("x\njava.lang.E: a\nb\n\tat A.a(A.java:1)\n\t... 2 more\nCaused by: E\n\tat B"), uint8(0), uint8(0), false)
	f.Add([]byte("Traceback (most recent call last):\n  File \"x\"\nE: x\n\nThe above exception was the direct cause of the following exception:\n\nTraceback (most recent call last):\n  y\nF: z"), uint8(3), uint8(20), false)
	f.Add([]byte("log: goroutine 1 [running]:\nruntime/debug.Stack()\n\t/a.go:1 +0x1\npanic: x\n\t y\n\ngoroutine 1 [running]:\nmain.main()\nINFO"), uint8(0), uint8(9), true)
	f.Add([]byte("/a.js:1\n  x\n  ^\n\nError: x\n    at f (/a.js:1:1) {\n  [cause]: Error: y\n}\n\nNode.js v20\n  a\n  b\nc"), uint8(4), uint8(0), false)
	f.Fuzz(func(t *testing.T, data []byte, maxLines, maxBytes uint8, truncate bool) {
		checkJoin(t, Config{Detect: stacktrace.All, MaxLines: int(maxLines % 6), MaxBytes: int(maxBytes % 64), Truncate: truncate}, data)
	})
}

// TestDetectRelease: the queues that gave long Maybe lines again are dropped by Release.
func TestDetectRelease(t *testing.T) {
	j, err := New(Config{Detect: stacktrace.All}, func([]byte, int64) {})
	assert.NoError(t, err)
	long := strings.Repeat("x", longbuf.Keep)
	j.Add([]byte("INFO a"), 7)
	j.Add([]byte("  "+long), 10+int64(len(long)))
	j.Flush() // gives the Maybe line again, through the queues
	assert.Greater(t, cap(j.detect.queue)+cap(j.detect.spare), longbuf.Keep)
	j.Release()
	assert.Zero(t, cap(j.detect.queue)+cap(j.detect.spare))
}
