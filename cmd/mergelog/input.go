package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"
	"unsafe"

	"github.com/mergelog/otelcol-mergelog/internal/decompress"
	"github.com/mergelog/otelcol-mergelog/internal/linereader"
	"github.com/mergelog/otelcol-mergelog/internal/linestart"
	"github.com/mergelog/otelcol-mergelog/internal/multiline"
	"github.com/mergelog/otelcol-mergelog/internal/readahead"
	"github.com/mergelog/otelcol-mergelog/internal/timestamp"
)

// entryConfig is what every input shares: how to find timestamps and where entries start.
type entryConfig struct {
	time      timestamp.Config
	lineStart *linestart.Matcher
}

func newEntryConfig(o options, loc *time.Location) (entryConfig, error) {
	c := entryConfig{time: timestamp.Config{Format: o.format, Layout: o.layout, Location: loc, Regex: o.timeRegex}}
	if _, err := timestamp.New(c.time); err != nil {
		return c, fmt.Errorf("timestamp flags: %w", err)
	}
	if o.lineStart != "" {
		m, err := linestart.Compile(o.lineStart)
		if err != nil {
			return c, fmt.Errorf("-line-start: %w", err)
		}
		c.lineStart = m
	}
	return c, nil
}

// input is one file (or stdin) as a merge.Source: decompressed, cut into lines, optionally
// joined into multiline entries, each with its timestamp.
type input struct {
	name   string
	file   io.Closer          // nil for stdin
	dec    *decompress.Reader // nil for a mapped file
	ahead  *readahead.Reader  // decompresses in its own goroutine; nil for plain inputs
	lines  *linereader.Reader
	parser *timestamp.Parser
	size   int64 // for progress; 0 when unknown

	// A plain regular file is mapped and its lines are slices of the mapping; the pages of the
	// lines already merged are dropped as the merge goes on, to bound the resident set.
	mapped   []byte
	released int // mapped[:released] has been dropped

	// Multiline: the joiner emits into ready; Next hands them out one at a time.
	joiner *multiline.Joiner
	ready  [][]byte
	spare  [][]byte
	atEOF  bool

	tailDone bool  // the last line without newline has been handed out
	err      error // the input's failure, returned after the data before it
}

func openInput(name string, stdin io.Reader, cfg entryConfig) (*input, error) {
	in := &input{name: name}
	r := stdin
	if name == "-" {
		in.name = "(stdin)"
	} else {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		in.file, r = f, f
		if st, err := f.Stat(); err == nil {
			in.size = st.Size()
			if st.Mode().IsRegular() {
				in.mapPlain(f)
			}
		}
	}
	if in.lines == nil {
		dec, err := decompress.NewReader(r)
		if err != nil {
			_ = in.Close() // the open failed; its error is the one to report
			return nil, fmt.Errorf("%s: %w", in.name, err)
		}
		in.dec = dec
		var src io.Reader = dec
		if dec.Kind() != decompress.Plain {
			// Decompression is CPU-bound: give it its own goroutine so the merge runs beside it.
			in.ahead = readahead.New(dec, 256<<10, 4)
			src = in.ahead
		}
		in.lines = linereader.New(src, linereader.Options{})
	}
	in.parser, _ = timestamp.New(cfg.time) // validated in newEntryConfig
	if cfg.lineStart != nil {
		var err error
		in.joiner, err = multiline.New(multiline.Config{Start: cfg.lineStart}, in.collect)
		if err != nil {
			_ = in.Close() // the set-up failed; its error is the one to report
			return nil, err
		}
	}
	return in, nil
}

// releaseStep is how many bytes of merged lines a mapped input drops at once: small enough that
// seven inputs stay well inside the resident-set target, large enough that the madvise calls
// cost nothing next to the lines.
const releaseStep = 1 << 20

// mapPlain maps f when its content is not compressed (decided from its first bytes, as
// decompress.NewReader does) and cuts lines from the mapping.
func (in *input) mapPlain(f *os.File) {
	data := mapFile(f, in.size)
	if data == nil {
		return
	}
	if decompress.Sniff(data[:min(len(data), 8)]) != decompress.Plain {
		unmapFile(data)
		return
	}
	in.mapped = data
	in.lines = linereader.NewBytes(data)
}

// faultedInput returns the input whose mapping holds the address of the memory fault r, or nil.
func faultedInput(r any, inputs []*input) *input {
	fault, ok := r.(interface{ Addr() uintptr })
	if !ok {
		return nil
	}
	for _, in := range inputs {
		base := uintptr(unsafe.Pointer(unsafe.SliceData(in.mapped)))
		if len(in.mapped) > 0 && fault.Addr()-base < uintptr(len(in.mapped)) {
			return in
		}
	}
	return nil
}

// abandon ends a mapped input with err after a fault in its mapping: it is not touched again.
func (in *input) abandon(err error) {
	in.err = fmt.Errorf("%s: %w (after %d bytes)", in.name, err, in.lines.Offset())
	in.lines = linereader.NewBytes(nil)
}

// consumed returns how many bytes of the file (compressed, if it is) have been read.
func (in *input) consumed() int64 {
	if in.dec == nil {
		return in.lines.Offset()
	}
	return in.dec.CompressedOffset()
}

// Next implements merge.Source.
func (in *input) Next() ([]byte, int64, bool, error) {
	var entry []byte
	if in.joiner == nil {
		line, ok := in.nextLine()
		if !ok {
			return nil, 0, false, in.err
		}
		entry = line
	} else {
		for len(in.ready) == 0 {
			if in.atEOF {
				return nil, 0, false, in.err
			}
			line, ok := in.nextLine()
			if !ok {
				in.atEOF = true
				in.joiner.Flush()
				continue
			}
			in.joiner.Add(line, 0)
		}
		entry = in.ready[0]
		in.spare = append(in.spare, entry[:0])
		in.ready = in.ready[1:]
	}
	at, ok := in.parser.Parse(entry)
	return entry, at, ok, nil
}

// nextLine returns the next line; false at the end, with in.err set (io.EOF or the failure).
func (in *input) nextLine() ([]byte, bool) {
	if in.mapped != nil {
		// The line handed out last is no longer used: drop the pages before it.
		if off := int(in.lines.Offset()); off-in.released >= releaseStep {
			end := off &^ (os.Getpagesize() - 1)
			dropPages(in.mapped[in.released:end])
			in.released = end
		}
	}
	line, err := in.lines.Next()
	if err == nil {
		return line, true
	}
	// A last line without a newline is still a line, also when the stream broke right after it.
	if p := in.lines.Partial(); len(p) > 0 && !in.tailDone {
		in.tailDone = true
		in.setErr(err)
		return p, true
	}
	in.setErr(err)
	return nil, false
}

func (in *input) setErr(err error) {
	if in.err != nil {
		return
	}
	if errors.Is(err, io.EOF) {
		in.err = io.EOF
		return
	}
	var derr *decompress.Error
	if errors.As(err, &derr) { // it already says how far it got
		in.err = fmt.Errorf("%s: %w", in.name, err)
		return
	}
	in.err = fmt.Errorf("%s: %w (after %d bytes)", in.name, err, in.lines.Offset()+int64(len(in.lines.Partial())))
}

// collect copies an entry from the joiner (its bytes are only valid during the call).
func (in *input) collect(text []byte, _ int64) {
	var buf []byte
	if n := len(in.spare); n > 0 {
		buf, in.spare = in.spare[n-1], in.spare[:n-1]
	}
	in.ready = append(in.ready, append(buf, text...))
}

func (in *input) Close() error {
	// The input is only read: closing the read-ahead and the decoder releases them and cannot lose
	// data, so only the file's own error is reported.
	if in.ahead != nil {
		_ = in.ahead.Close() // stops the read-ahead goroutine before the decoder closes
	}
	if in.dec != nil {
		_ = in.dec.Close()
	}
	if in.mapped != nil {
		unmapFile(in.mapped)
	}
	if in.file != nil {
		return in.file.Close()
	}
	return nil
}
