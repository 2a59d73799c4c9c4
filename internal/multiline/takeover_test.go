package multiline

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mergelog/otelcol-mergelog/internal/stacktrace"
)

// TestTakeOver: a trace whose first lines one Joiner got and whose rest another gets comes out
// of the second, whole, with the end of its last line there; the first emits nothing more. The
// lines taken over, when the next line does not join them, end where the second input begins.
func TestTakeOver(t *testing.T) {
	trace := []string{"java.lang.IllegalStateException: boom", "\tat A.a(A.java:1)", "\tat B.b(B.java:2)", "\tat C.c(C.java:3)"}
	tests := []struct {
		name string
		rest []string
		want []entry
	}{
		{"continued", append(trace[2:], "INFO after"),
			[]entry{{strings.Join(trace, "\n"), 2 * 18}, {"INFO after", 2*18 + 11}}},
		{"not continued", []string{"INFO after"}, []entry{{strings.Join(trace[:2], "\n"), 0}, {"INFO after", 11}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before, after []entry
			a, err := New(Config{Detect: stacktrace.All}, func(text []byte, end int64) { before = append(before, entry{string(text), end}) })
			require.NoError(t, err)
			b, err := New(Config{Detect: stacktrace.All}, func(text []byte, end int64) { after = append(after, entry{string(text), end}) })
			require.NoError(t, err)
			a.Add([]byte("INFO before"), 12)
			a.Add([]byte(trace[0]), 100)
			a.Add([]byte(trace[1]), 200)
			b.TakeOver(a, 0)
			assert.False(t, a.Pending())
			var end int64
			for _, l := range tt.rest {
				end += int64(len(l)) + 1
				b.Add([]byte(l), end)
			}
			b.Flush()
			a.Flush()
			assert.Equal(t, []entry{{"INFO before", 12}}, before)
			assert.Equal(t, tt.want, after)
		})
	}
}
