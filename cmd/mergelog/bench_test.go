package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mergelog/otelcol-mergelog/internal/loggen"
)

// BenchmarkMergeCLF merges 7 CLF files in three zones (the bench-mergelog workload, smaller)
// into io.Discard; b.SetBytes is the input size, so MB/s is input throughput.
func BenchmarkMergeCLF(b *testing.B) {
	dir := b.TempDir()
	var files []string
	var total int64
	for i, off := range []int{0, 3600, 0, 9 * 3600, 0, -5 * 3600, 0} {
		p := filepath.Join(dir, fmt.Sprintf("access-%d.log", i))
		f, err := os.Create(p)
		if err != nil {
			b.Fatal(err)
		}
		start := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
		if err := loggen.WriteCLF(f, loggen.CLF{Start: start, Span: 24 * time.Hour, Lines: 50000, Offset: off, MalformedEvery: 5000, Seed: uint64(i + 1)}); err != nil {
			b.Fatal(err)
		}
		st, _ := f.Stat()
		total += st.Size()
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
		files = append(files, p)
	}
	o, _, err := parseFlags(files, io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(total)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		var errs strings.Builder
		if status := run(o, files, nil, io.Discard, &errs); status != 0 {
			b.Fatalf("status %d: %s", status, errs.String())
		}
	}
}
