package stacktrace_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mergelog/otelcol-mergelog/internal/stacktrace"
)

// TestShapes covers shapes the captured outputs do not have (other runtime versions, rarer
// forms, near misses), written from the runtimes' formats: each case is its records, in order.
func TestShapes(t *testing.T) {
	tests := []struct {
		name    string
		records []string
	}{
		{"ruby 3.4 quotes", []string{
			"app.rb:3:in 'Integer#/': divided by 0 (ZeroDivisionError)\n\tfrom app.rb:3:in 'Object#divide'\n\t ... 8 levels...\n\tfrom app.rb:7:in '<main>'",
			"done",
		}},
		{"go recovered and repanicked", []string{
			"panic: first [recovered]\n\tpanic: second\n\ngoroutine 1 [running]:\nmain.main.func1()\n\t/app/main.go:8 +0x25\nmain.main()\n\t/app/main.go:10 +0x3b",
			"next line",
		}},
		{"go signal", []string{
			"panic: runtime error: invalid memory address or nil pointer dereference\n[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x47b8a4]\n\ngoroutine 1 [running]:\nmain.main()\n\t/app/main.go:6 +0x4",
		}},
		{"go frames end at a line that is not one", []string{
			"goroutine 1 [running]:\nmain.main()\n\t/app/main.go:6 +0x4",
			"main.done(ok)", // a function line, but no file:line confirms it
			"INFO next",
		}},
		{"python syntax error", []string{
			"  File \"/app/x.py\", line 1", // an indented line alone is no traceback
			"Traceback (most recent call last):\n  File \"/app/x.py\", line 1\n    x = (\n        ^\nSyntaxError: '(' was never closed",
			"INFO next",
		}},
		{"php display errors", []string{
			"PHP Fatal error:  Uncaught Exception: boom in /app/x.php:3\nStack trace:\n#0 {main}\n  thrown in /app/x.php on line 3",
			"Fatal error: Uncaught Exception: boom in /app/x.php:3\nStack trace:\n#0 {main}\n  thrown in /app/x.php on line 3",
			"#1 is not a frame here",
		}},
		{"dotnet async", []string{
			"System.InvalidOperationException: boom\n   at Program.Inner() in /src/Program.cs:line 9\n--- End of stack trace from previous location ---\n   at Program.Main() in /src/Program.cs:line 4",
		}},
		{"java frames after a log line that carries the exception", []string{
			"2026-12-02 ERROR c.e.Orders - failed: java.lang.IllegalStateException: boom\n\tat c.e.Orders.run(Orders.java:10)\n\tat c.e.Main.main(Main.java:5)",
			"2026-12-02 INFO next",
		}},
		{"prose that looks like frames", []string{
			"at noon the job ran",
			"   at noon the job ran again",
			"\tfrom the warehouse",
			"Traceback: none",
		}},
		{"a false exception line does not swallow a real trace", []string{
			"Error: not a trace",
			"line after it",
			"java.lang.RuntimeException: real\n\tat Main.main(Main.java:3)",
		}},
		{"a message longer than MaxMaybe lines", append(
			// The header and MaxMaybe lines wait for a frame; one more line, and they go out.
			strings.Split("java.lang.RuntimeException: long\n"+strings.Repeat("message line\n", stacktrace.MaxMaybe), "\n")[:stacktrace.MaxMaybe+1],
			"message line\n\tat Main.main(Main.java:3)",
		)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := strings.Join(tt.records, "\n") + "\n"
			assert.Equal(t, tt.records, records(t, stacktrace.All, []byte(out)))
		})
	}
}

// TestOnlyEnabledLanguages: a language that is off joins nothing.
func TestOnlyEnabledLanguages(t *testing.T) {
	trace := "Traceback (most recent call last):\n  File \"/app/x.py\", line 1, in <module>\nValueError: x\n"
	assert.Len(t, records(t, 1<<stacktrace.Python, []byte(trace)), 1)
	assert.Len(t, records(t, 1<<stacktrace.Go, []byte(trace)), 3)
}

func TestParseSet(t *testing.T) {
	s, err := stacktrace.ParseSet([]string{"java", "go"})
	require.NoError(t, err)
	assert.True(t, s.Has(stacktrace.Java) && s.Has(stacktrace.Go) && !s.Has(stacktrace.Python))
	s, err = stacktrace.ParseSet([]string{"all"})
	require.NoError(t, err)
	assert.Equal(t, stacktrace.All, s)
	_, err = stacktrace.ParseSet([]string{"cobol"})
	assert.ErrorContains(t, err, `unknown language "cobol" (known: java, python, go, nodejs, ruby, dotnet, php, all)`)
}

// FuzzDetector: any lines give verdicts, never more than MaxMaybe Maybe in a row, and no panic.
func FuzzDetector(f *testing.F) {
	f.Add("Traceback (most recent call last):\n  File \"x\"\nE: x\n\nDuring handling of the above exception, another exception occurred:\n\n")
	f.Add("panic: x\n\t y\n\ngoroutine 1 [running]:\nmain.main()\n\t/a.go:1 +0x1\nexit status 2")
	f.Add("/a.js:1\n  x\n  ^\n\nError: x\n    at f (/a.js:1:1) {\n  [cause]: Error: y\n}\n\nNode.js v20")
	f.Add("a.rb:1:in `m': x (E)\n\tfrom a.rb:2:in `<main>'\nPHP Fatal error:  Uncaught E: x\nStack trace:\n#0 {main}\n  thrown in")
	f.Fuzz(func(t *testing.T, data string) {
		d := stacktrace.New(stacktrace.All)
		maybes := 0
		for line := range strings.SplitSeq(data, "\n") {
			switch v := d.Next([]byte(line)); v {
			case stacktrace.Maybe:
				maybes++
				require.LessOrEqual(t, maybes, stacktrace.MaxMaybe)
			case stacktrace.Start, stacktrace.Join:
				maybes = 0
			default:
				t.Fatalf("verdict %d", v)
			}
		}
	})
}
