// Command checkmerge checks a merged log against its inputs: the output must be a permutation of
// the input lines (byte for byte, a last line without newline counted as a line) and its
// timestamped lines must be in UTC order. It prints the counts and exits 1 when a check fails.
//
//	go run ./internal/loggen/checkmerge -o merged.log in1.log in2.log ...
package main

import (
	"bufio"
	"flag"
	"fmt"
	"hash/maphash"
	"io"
	"os"

	"github.com/mergelog/otelcol-mergelog/internal/decompress"
	"github.com/mergelog/otelcol-mergelog/internal/timestamp"
)

// multiset is an order-independent digest of a bag of lines: two sums of independent 64-bit
// hashes plus the count. Equal bags give equal digests; unequal ones collide with negligible chance.
type multiset struct {
	n      int64
	s1, s2 uint64
}

var seed1, seed2 = maphash.MakeSeed(), maphash.MakeSeed()

func (m *multiset) add(line []byte) {
	m.n++
	m.s1 += maphash.Bytes(seed1, line)
	m.s2 += maphash.Bytes(seed2, line)
}

func main() {
	output := flag.String("o", "", "the merged output to check")
	format := flag.String("format", "clf", "timestamp format of the lines (as for mergelog)")
	flag.Parse()
	if *output == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: checkmerge -o MERGED INPUT...")
		os.Exit(2)
	}
	parser, err := timestamp.New(timestamp.Config{Format: *format})
	if err != nil {
		fail(err)
	}
	var in multiset
	for _, name := range flag.Args() {
		if err := eachLine(name, func(line []byte) { in.add(line) }); err != nil {
			fail(err)
		}
	}
	var out multiset
	var timed, untimed, misordered int64
	maxAt := int64(-1 << 63)
	err = eachLine(*output, func(line []byte) {
		out.add(line)
		at, ok := parser.Parse(line)
		if !ok {
			untimed++
			return
		}
		timed++
		if at < maxAt {
			misordered++
		}
		maxAt = max(maxAt, at)
	})
	if err != nil {
		fail(err)
	}
	perm := in == out
	fmt.Printf("input lines %d, output lines %d, permutation %v, timed %d, untimed %d, out of UTC order %d (%.1f%%)\n",
		in.n, out.n, perm, timed, untimed, misordered, 100*float64(misordered)/float64(max(timed, 1)))
	if !perm || misordered > 0 {
		os.Exit(1)
	}
}

// eachLine calls fn for every line of a (possibly compressed) file, without its newline.
func eachLine(name string, fn func([]byte)) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }() // read only
	r, err := decompress.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	defer func() { _ = r.Close() }() // releases the decoder; returns no error
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			return fmt.Errorf("%s: line longer than 1 MiB", name)
		}
		if len(line) > 0 {
			if line[len(line)-1] == '\n' {
				line = line[:len(line)-1]
			}
			fn(line)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "checkmerge:", err)
	os.Exit(2)
}
