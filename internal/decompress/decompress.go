// Package decompress opens a byte stream that may be compressed, choosing
// the decoder from the stream's magic bytes, never from a file name: logs
// are rotated, renamed and piped, and only their content says what they are.
package decompress

import (
	"bufio"
	"bytes"
	"compress/bzip2"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

// Kind is a compression format.
type Kind int

const (
	// Auto asks NewReaderKind to detect the format from the magic bytes. It is
	// the zero value, so an unset configuration means detection. A Reader
	// never reports Auto.
	Auto Kind = iota
	Plain
	Gzip
	Bzip2
	Xz
	Zstd
)

var kindNames = [...]string{
	Auto:  "auto",
	Plain: "plain",
	Gzip:  "gzip",
	Bzip2: "bzip2",
	Xz:    "xz",
	Zstd:  "zstd",
}

func (k Kind) String() string {
	if k < 0 || int(k) >= len(kindNames) {
		return fmt.Sprintf("Kind(%d)", int(k))
	}
	return kindNames[k]
}

// ParseKind parses a configuration value, case-insensitively: "auto";
// "none", "plain" or "" for Plain (file_log's empty compression means none);
// "gzip" or "gz"; "bzip2" or "bz2"; "xz"; "zstd" or "zst".
func ParseKind(s string) (Kind, error) {
	switch strings.ToLower(s) {
	case "auto":
		return Auto, nil
	case "", "none", "plain":
		return Plain, nil
	case "gzip", "gz":
		return Gzip, nil
	case "bzip2", "bz2":
		return Bzip2, nil
	case "xz":
		return Xz, nil
	case "zstd", "zst":
		return Zstd, nil
	}
	return Auto, fmt.Errorf("unknown compression %q: want auto, none, gzip, bzip2, xz or zstd", s)
}

var (
	magicGzip = []byte{0x1f, 0x8b}
	magicXz   = []byte{0xfd, '7', 'z', 'X', 'Z', 0x00}
	magicZstd = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// maxMagic is the longest prefix Sniff needs (xz).
const maxMagic = 6

// Sniff returns the format whose magic bytes start prefix, or Plain. Bzip2
// needs "BZh" and a block-size digit '1'..'9', so a text line that merely
// starts with "BZh" stays text.
func Sniff(prefix []byte) Kind {
	switch {
	case bytes.HasPrefix(prefix, magicGzip):
		return Gzip
	case len(prefix) >= 4 && prefix[0] == 'B' && prefix[1] == 'Z' && prefix[2] == 'h' &&
		prefix[3] >= '1' && prefix[3] <= '9':
		return Bzip2
	case bytes.HasPrefix(prefix, magicXz):
		return Xz
	case bytes.HasPrefix(prefix, magicZstd):
		return Zstd
	}
	return Plain
}

// undecided reports whether prefix is a proper prefix of some magic, so more
// bytes are needed before Sniff can tell. It lets NewReader decide a plain
// stream after its first byte instead of waiting for six on a slow pipe.
func undecided(prefix []byte) bool {
	for _, m := range [...][]byte{magicGzip, []byte("BZh1"), magicXz, magicZstd} {
		if len(prefix) < len(m) && bytes.HasPrefix(m, prefix) {
			return true
		}
	}
	return false
}

// Error reports a compressed stream that could not be decoded: damaged,
// cut short, or refused because a header asks for more memory than the cap
// (Err wraps ErrMemoryCap). The bytes decoded before have been delivered by
// Read.
type Error struct {
	Kind    Kind
	Offset  int64 // compressed bytes consumed when the damage was found
	Decoded int64 // decompressed bytes delivered before it
	Err     error // the decoder's error; io.ErrUnexpectedEOF when truncated, ErrMemoryCap when refused
}

func (e *Error) Error() string {
	what := "corrupt"
	switch {
	case errors.Is(e.Err, ErrMemoryCap):
		what = "refused"
	case errors.Is(e.Err, io.ErrUnexpectedEOF):
		what = "truncated"
	}
	return fmt.Sprintf("%s stream %s after %d compressed bytes (%d bytes decoded): %v",
		e.Kind, what, e.Offset, e.Decoded, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// peekSize is the read size from the underlying stream: large enough that a
// compressed input costs few syscalls.
const peekSize = 64 << 10

// zstdMaxWindow matches the zstd CLI's default decoder limit (windowLog 27):
// larger windows need --long and would let a hostile file claim gigabytes.
const zstdMaxWindow = 128 << 20

var errClosed = errors.New("decompress: read after Close")

// Reader decompresses a stream. It is not safe for concurrent use.
//
// For Plain, Read passes the underlying reader's results through unchanged,
// so io.EOF is not final: a growing file can be read on after it. For the
// compressed kinds, io.EOF and errors are final.
type Reader struct {
	kind      Kind
	src       countingReader
	br        *bufio.Reader // over &src; the decoders read it directly
	dec       io.Reader     // nil until the first Read of a compressed kind
	zr        *zstd.Decoder // kept to release its buffers on Close
	xz        *xzGate       // between the xz decoder and br, for Xz
	maxXzDict int64
	decoded   int64 // by a compressed kind, for Error
	err       error // sticky: a compressed kind's error, or errClosed
}

// NewReader detects the format of r from its first bytes and returns a Reader
// that decompresses it. It peeks through a buffer, so no byte is lost and r
// needs no Seek: stdin and pipes work. It reads only as many bytes as it
// needs to decide: a stream whose first byte cannot start a magic is Plain at
// once. A stream that ends inside a magic (say "BZ") is Plain. Errors in the
// compressed data are reported by Read, as *Error; NewReader fails only if
// reading r fails.
func NewReader(r io.Reader) (*Reader, error) {
	return NewReaderKind(r, Auto)
}

// NewReaderKind is NewReader with the format forced by configuration, unless
// k is Auto.
func NewReaderKind(r io.Reader, k Kind) (*Reader, error) {
	return NewReaderOptions(r, k, Options{})
}

// DefaultXzMaxDict is the default Options.XzMaxDict: the dictionary of xz -9,
// the largest the xz presets use.
const DefaultXzMaxDict = 64 << 20

// Options bound the memory a Reader lets a stream's headers claim. The zero
// value holds the defaults.
type Options struct {
	// XzMaxDict is the largest LZMA2 dictionary, in bytes, an xz block header
	// may ask for; 0 means DefaultXzMaxDict. A block asking for more is
	// refused, as *Error wrapping ErrMemoryCap, before its dictionary is
	// allocated; the blocks before it are delivered. (The format allows up to
	// 4 GiB; zstd windows are capped at 128 MiB, as the zstd CLI does, and a
	// bzip2 block takes at most 900 kB.)
	XzMaxDict int64
}

// NewReaderOptions is NewReaderKind with the memory caps of o.
func NewReaderOptions(r io.Reader, k Kind, o Options) (*Reader, error) {
	if k < Auto || k > Zstd {
		return nil, fmt.Errorf("decompress: invalid kind %d", int(k))
	}
	if o.XzMaxDict < 0 {
		return nil, fmt.Errorf("decompress: negative xz dictionary cap %d", o.XzMaxDict)
	}
	if o.XzMaxDict == 0 {
		o.XzMaxDict = DefaultXzMaxDict
	}
	z := &Reader{src: countingReader{r: r}, maxXzDict: o.XzMaxDict}
	z.br = bufio.NewReaderSize(&z.src, peekSize)
	if k == Auto {
		k = Plain
		for n := 1; n <= maxMagic; n++ {
			p, err := z.br.Peek(n)
			if len(p) < n {
				if err != nil && err != io.EOF {
					return nil, err
				}
				break
			}
			if k = Sniff(p); !undecided(p) {
				break
			}
		}
	}
	z.kind = k
	return z, nil
}

// Kind returns the format being decoded: never Auto.
func (z *Reader) Kind() Kind { return z.kind }

// CompressedOffset returns how many bytes of the underlying stream the
// decoder has consumed: exact for plain, gzip and bzip2; for xz and zstd it
// may be ahead by what their decoders buffer internally.
func (z *Reader) CompressedOffset() int64 {
	return z.src.n - int64(z.br.Buffered())
}

// Read reads decompressed bytes.
func (z *Reader) Read(p []byte) (int, error) {
	if z.err != nil {
		return 0, z.err
	}
	if z.kind == Plain {
		if z.br.Buffered() > 0 {
			return z.br.Read(p)
		}
		// The peeked bytes are gone: skip the copy through bufio.
		return z.src.Read(p)
	}
	if z.dec == nil {
		if err := z.open(); err != nil {
			z.err = z.wrap(err)
			return 0, z.err
		}
	}
	n, err := z.dec.Read(p)
	z.decoded += int64(n)
	if err != nil {
		if err == io.EOF && z.xz != nil && !z.xz.done() {
			err = io.ErrUnexpectedEOF // the decoder alone ends some cut streams without error
		}
		if err != io.EOF {
			err = z.wrap(err)
		}
		z.err = err
	}
	return n, err
}

// open creates the decoder at the first Read, so that a damaged header is
// reported by Read like any later damage.
func (z *Reader) open() error {
	switch z.kind {
	case Gzip:
		gr, err := gzip.NewReader(z.br) // multistream by default, as gzip -d
		if err != nil {
			return err
		}
		z.dec = gr
	case Bzip2:
		z.dec = bzip2.NewReader(z.br) // reads concatenated streams, as bzip2 -d
	case Xz:
		// Reads concatenated streams and padding, as xz -d. The decoder
		// allocates the dictionary each block header asks for, up to 4 GiB,
		// and offers no cap: the gate refuses a header above maxXzDict before
		// the decoder sees it.
		z.xz = newXzGate(z.br, z.maxXzDict)
		xr, err := xz.NewReader(z.xz)
		if err != nil {
			return err
		}
		z.dec = xr
	case Zstd:
		// Concurrency 1 decodes synchronously: no goroutines to leak, and the
		// command already gives each compressed input its own goroutine.
		zr, err := zstd.NewReader(z.br,
			zstd.WithDecoderConcurrency(1),
			zstd.WithDecoderLowmem(true),
			zstd.WithDecoderMaxMemory(zstdMaxWindow))
		if err != nil {
			return err
		}
		z.dec, z.zr = zr, zr
	}
	return nil
}

// wrap turns a decoder error into *Error, except a failure of the
// underlying reader, which is passed on as is: the data is not at fault.
func (z *Reader) wrap(err error) error {
	if z.src.err != nil && z.src.err != io.EOF {
		return z.src.err
	}
	if z.xz != nil && z.xz.err != nil && z.xz.err != io.EOF {
		err = z.xz.err // found by the gate: the decoder may have reworded it
	}
	if err == io.EOF { // a header cut short
		err = io.ErrUnexpectedEOF
	}
	return &Error{Kind: z.kind, Offset: z.CompressedOffset(), Decoded: z.decoded, Err: err}
}

// Close releases the decoder's resources. It does not close the underlying
// reader, which belongs to the caller.
func (z *Reader) Close() error {
	if z.zr != nil {
		z.zr.Close()
		z.zr = nil
	}
	z.err = errClosed
	return nil
}

// countingReader counts the bytes read from the underlying stream and keeps
// its last error, so that an I/O failure is not mistaken for corrupt data.
type countingReader struct {
	r   io.Reader
	n   int64
	err error
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	c.err = err
	return n, err
}
