package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/mergelog/otelcol-mergelog/internal/loggen"
)

// input is a set of generated files and what a receiver must deliver from them.
type input struct {
	glob    string
	bytes   int64 // total file size
	entries int64 // records expected: lines, or multiline entries
}

// generator makes the workloads with package loggen. The main module's internal packages are
// visible here because this module's import path is under the main module's. Files are written
// under a temporary name and renamed when complete, so that a kept data directory never offers
// a partial one.
type generator struct {
	data string
}

// clfDay is the day the generated access logs cover.
var clfDay = time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)

// clfLines returns a writer of n access log lines in the UTC offset off (seconds east), from seed.
func clfLines(off int, seed uint64) func(io.Writer, int) error {
	return func(w io.Writer, n int) error {
		return loggen.WriteCLF(w, loggen.CLF{Start: clfDay, Span: 24 * time.Hour, Lines: n, Offset: off, Seed: seed})
	}
}

// logtail is one file of the Logtail article's workload: a ~1100 B "cnt:N,..." line followed
// by three stack-frame lines per entry.
func (g *generator) logtail(size int64) (input, error) {
	path := filepath.Join(g.data, fmt.Sprintf("logtail-%dMB.log", size/1e6))
	if err := g.file(path, size, loggen.WriteLogtail); err != nil {
		return input{}, err
	}
	return count(path, []string{path}, []byte("cnt"))
}

// clf is one Combined Log Format access log: plain lines.
func (g *generator) clf(size int64) (input, error) {
	path := filepath.Join(g.data, fmt.Sprintf("clf-%dMB.log", size/1e6))
	if err := g.file(path, size, clfLines(0, 1)); err != nil {
		return input{}, err
	}
	return count(path, []string{path}, nil)
}

// mergeOffsets are the UTC offsets, in seconds east, of the seven servers whose access logs are
// merged: +0000, +0100, -0500, +0900, +0530, -0800, +1000.
var mergeOffsets = []int{0, 3600, -5 * 3600, 9 * 3600, 5*3600 + 30*60, -8 * 3600, 10 * 3600}

// merge is seven access logs written in different UTC offsets, covering the same day.
func (g *generator) merge(size int64) (input, error) {
	dir := filepath.Join(g.data, fmt.Sprintf("merge-%dMB", size/1e6))
	var paths []string
	for i, off := range mergeOffsets {
		p := filepath.Join(dir, fmt.Sprintf("server%d.log", i))
		paths = append(paths, p)
		if _, err := os.Stat(p); err == nil {
			continue
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return input{}, err
		}
		if err := g.file(p, size/int64(len(mergeOffsets)), clfLines(off, uint64(i+1))); err != nil {
			return input{}, err
		}
	}
	return count(filepath.Join(dir, "*.log"), paths, nil)
}

// pods is the CLF log as a container runtime writes it under /var/log/pods (writeCRI).
func (g *generator) pods(size int64) (input, error) {
	src, err := g.clf(size)
	if err != nil {
		return input{}, err
	}
	return g.podOf(src, fmt.Sprintf("pods-%dMB", size/1e6))
}

// podOf is the one-file input src as a pod's container log in the directory name.
func (g *generator) podOf(src input, name string) (input, error) {
	dir := filepath.Join(g.data, name, "shop_cart-7d9f_0b7c-11ef", "server")
	path := filepath.Join(dir, "0.log")
	if _, err := os.Stat(path); err != nil {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return input{}, err
		}
		if err := writeCRI(src.glob, path); err != nil {
			return input{}, err
		}
	}
	in, err := count(path, []string{path}, nil)
	in.entries = src.entries // a split line is one record
	return in, err
}

// writeCRI writes each line of the file at from to path with a CRI prefix: one line in ten on
// stderr, one in twenty split in two by the runtime (P, then F).
func writeCRI(from, path string) error {
	f, err := os.Open(from)
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }() // read only
	tmp := path + ".tmp"
	out, err := os.Create(tmp)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(out, 1<<20)
	s := bufio.NewScanner(f)
	s.Buffer(make([]byte, 1<<20), 1<<20)
	at := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	for n := 0; s.Scan(); n++ {
		at = at.Add(time.Millisecond + time.Duration(n%1000))
		stream := "stdout"
		if n%10 == 9 {
			stream = "stderr"
		}
		ts := at.Format("2006-01-02T15:04:05.000000000Z07:00")
		line := s.Bytes()
		if n%20 == 19 && len(line) > 2 {
			// Never after a space: file_log trims each physical line before its container
			// operator joins the pieces, and would lose that space (ours keeps it), so the
			// bodies would differ.
			cut := len(line) / 2
			for cut > 1 && line[cut-1] == ' ' {
				cut--
			}
			fmt.Fprintf(w, "%s %s P %s\n", ts, stream, line[:cut])
			line = line[cut:]
		}
		fmt.Fprintf(w, "%s %s F %s\n", ts, stream, line)
	}
	if err := errors.Join(s.Err(), w.Flush(), out.Close()); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// file writes about size bytes to path with write, which writes n entries, unless path exists.
func (g *generator) file(path string, size int64, write func(w io.Writer, n int) error) error {
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	// Size one entry from a sample, then ask for as many entries as fill size.
	const n = 2000
	var sample byteCounter
	if err := write(&sample, n); err != nil {
		return err
	}
	entries := max(size*n/int64(sample), 1)
	fmt.Fprintf(os.Stderr, "generating %s (%d entries)\n", path, entries)
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if err := errors.Join(write(f, int(entries)), f.Close()); err != nil {
		return fmt.Errorf("generating %s: %w", path, err)
	}
	return os.Rename(tmp, path)
}

// byteCounter is an io.Writer that only counts.
type byteCounter int64

func (c *byteCounter) Write(p []byte) (int, error) {
	*c += byteCounter(len(p))
	return len(p), nil
}

// count reads the files to find what a receiver must deliver: the lines that start with
// prefix, or, with a nil prefix, every non-empty line.
func count(glob string, paths []string, prefix []byte) (input, error) {
	in := input{glob: glob}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return in, err
		}
		st, err := f.Stat()
		if err != nil {
			_ = f.Close() // read only
			return in, err
		}
		in.bytes += st.Size()
		s := bufio.NewScanner(f)
		s.Buffer(make([]byte, 1<<20), 1<<20)
		for s.Scan() {
			if len(s.Bytes()) > 0 && bytes.HasPrefix(s.Bytes(), prefix) {
				in.entries++
			}
		}
		_ = f.Close() // read only
		if err := s.Err(); err != nil {
			return in, fmt.Errorf("%s: %w", p, err)
		}
	}
	return in, nil
}
