package filetrack

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkReadLines reads a large plain file through File.Next: the
// receiver's hot path. One op is one pass over the file.
func BenchmarkReadLines(b *testing.B) {
	dir := b.TempDir()
	p := filepath.Join(dir, "big.log")
	fd, err := os.Create(p)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(fd)
	var size int64
	nlines := 0
	for size < 64<<20 {
		// Lines of varying length, as in an access log.
		n, _ := fmt.Fprintf(w, "10.0.%d.%d - - [10/Oct/2000:13:55:36 -0700] \"GET /a/%0*d HTTP/1.0\" 200 %d\n",
			nlines%256, nlines%200, 10+nlines%70, nlines, nlines%5000)
		size += int64(n)
		nlines++
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	must(b, fd.Close())

	tr, err := New(Options{Include: []string{p}, StartAtBeginning: true})
	if err != nil {
		b.Fatal(err)
	}
	defer func() { must(b, tr.Close()) }()
	files := tr.Poll()
	if len(files) != 1 {
		b.Fatalf("Poll returned %d files", len(files))
	}
	f := files[0]
	pass := func() {
		n := 0
		for {
			_, _, err := f.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != nlines {
			b.Fatalf("read %d lines, want %d", n, nlines)
		}
		rewind(f)
	}
	pass() // the read buffer is allocated once, then reused
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		pass()
	}
}

// rewind makes f read its file again from the start.
func rewind(f *File) {
	f.r.release()
	f.r.off, f.r.counted, f.r.needSeek = 0, 0, true
}

// BenchmarkPoll polls files that do not change: the steady-state cost of
// discovery. Listed fully, a stat per file; watched (Linux), between full
// listings only what the directory watches report, nothing here.
func BenchmarkPoll(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		dir := b.TempDir()
		for i := range n {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%05d.log", i)),
				fmt.Appendf(nil, "file %d line\n", i), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		for _, watch := range []bool{false, true} {
			b.Run(fmt.Sprintf("files=%d/watch=%t", n, watch), func(b *testing.B) {
				benchmarkPoll(b, Options{Include: []string{filepath.Join(dir, "*.log")}, Watch: watch}, n)
			})
		}
	}
}

func benchmarkPoll(b *testing.B, opts Options, n int) {
	tr, err := New(opts)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { must(b, tr.Close()) }()
	tr.Poll()
	tr.Poll() // a second full listing when directories were newly watched
	if st := tr.Stats(); st.FilesTracked != n {
		b.Fatalf("tracking %d files", st.FilesTracked)
	}
	b.ReportAllocs()
	for b.Loop() {
		if files := tr.Poll(); len(files) != 0 {
			b.Fatalf("Poll returned %d files", len(files))
		}
	}
}
