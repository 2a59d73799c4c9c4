package mergelogreceiver

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/receiver/receivertest"

	"github.com/mergelog/otelcol-mergelog/internal/loggen"
	"github.com/mergelog/otelcol-mergelog/internal/testkit"
	"github.com/mergelog/otelcol-mergelog/receiver/mergelogreceiver/internal/metadata"
)

// BenchmarkReceiver measures the receiver end to end (files to pdata batches) on files it reads
// from the beginning, into a consumer that only counts. Besides wall time it reports MB per
// CPU-second of the process (user+sys), the measure that holds on a shared machine.
func BenchmarkReceiver(b *testing.B) {
	const lines = 100_000
	clf := func(f, i int) string {
		return fmt.Sprintf(`10.0.%d.%d - - [01/Jan/2024:00:%02d:%02d +0000] "GET /api/items/%d HTTP/1.1" 200 %d "-" "bench/1.0"`,
			f, i%250, i/60%60, i%60, i, 100+i%900)
	}
	// lineFiles writes lines/files lines of entry into each of files files.
	lineFiles := func(files int, entry func(f, i int) string) func(f int, w io.Writer) {
		return func(f int, w io.Writer) {
			for i := range lines / files {
				fmt.Fprintln(w, entry(f, i)) // into a strings.Builder, which cannot fail
			}
		}
	}
	// The workloads of the targets, as bench/ generates them: the Logtail article's
	// multiline log, realistic CLF lines, and seven CLF logs in different UTC offsets merged.
	offsets := []int{0, 3600, -5 * 3600, 9 * 3600, 5*3600 + 1800, -8 * 3600, 10 * 3600}
	genCLF := func(f int, w io.Writer) {
		err := loggen.WriteCLF(w, loggen.CLF{Start: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC),
			Span: 24 * time.Hour, Lines: lines, Offset: offsets[f], Seed: uint64(f + 1)})
		if err != nil {
			b.Fatal(err)
		}
	}
	merge := func(c *Config) {
		c.Timestamp = &TimestampConfig{Format: "clf"}
		c.Merge = MergeConfig{Enabled: true, Window: time.Second, MaxHeldPerFile: 10000}
	}
	for _, bc := range []struct {
		name    string
		files   int
		entries int64
		write   func(f int, w io.Writer)
		setup   func(*Config)
	}{
		{"plain", 1, lines, lineFiles(1, clf), func(*Config) {}},
		{"plain-utf16le", 1, lines, encodedAs(utf16LE, lineFiles(1, clf)), func(c *Config) { c.Encoding = "utf-16le" }},
		{"multiline", 1, lines / 5, lineFiles(1, func(f, i int) string {
			if i%5 == 0 {
				return fmt.Sprintf("2024-01-01 00:00:%02d ERROR request %d failed", i%60, i)
			}
			return fmt.Sprintf("\tat com.example.Service.method%d(Service.java:%d)", i%7, i)
		}), func(c *Config) { c.Multiline.LineStartPattern = `\d{4}-\d{2}-\d{2}` }},
		{"merge", 3, lines, lineFiles(3, clf), merge},
		{"logtail", 1, lines / 4, func(_ int, w io.Writer) {
			if err := loggen.WriteLogtail(w, lines/4); err != nil {
				b.Fatal(err)
			}
		}, func(c *Config) { c.Multiline.LineStartPattern = `cnt.*` }},
		{"clf", 1, lines, genCLF, func(*Config) {}},
		{"merge7", len(offsets), lines * int64(len(offsets)), genCLF, merge},
	} {
		b.Run(bc.name, func(b *testing.B) {
			dir := b.TempDir()
			size := 0
			for f := range bc.files {
				var sb strings.Builder
				bc.write(f, &sb)
				size += sb.Len()
				testkit.WriteFile(b, filepath.Join(dir, fmt.Sprintf("f%d.log", f)), sb.String())
			}
			cfg := testConfig(dir)
			cfg.PollInterval = 100 * time.Millisecond
			cfg.Batch.Timeout = 5 * time.Millisecond
			bc.setup(cfg)
			b.SetBytes(int64(size))
			b.ReportAllocs()
			cpu0 := cpuTime(b)
			for b.Loop() {
				var n atomic.Int64
				next, _ := consumer.NewLogs(func(_ context.Context, ld plog.Logs) error {
					n.Add(int64(ld.LogRecordCount()))
					return nil
				})
				r, err := NewFactory().CreateLogs(context.Background(), receivertest.NewNopSettings(metadata.Type), cfg, next)
				if err != nil {
					b.Fatal(err)
				}
				if err := r.Start(context.Background(), componenttest.NewNopHost()); err != nil {
					b.Fatal(err)
				}
				// The last multiline entry waits for force_flush_period: count up to it.
				for n.Load() < bc.entries-1 {
					time.Sleep(time.Millisecond)
				}
				if err := r.Shutdown(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(size)*float64(b.N)/1e6/(cpuTime(b)-cpu0).Seconds(), "MB/cpu-s")
		})
	}
}

// cpuTime is the process's user+sys CPU time so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
