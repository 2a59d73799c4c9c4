package decompress

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"

	"github.com/mergelog/otelcol-mergelog/internal/loggen"
	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

// xzBlock is a block of a hand-made xz stream: its data in one uncompressed LZMA2 chunk, under
// a block header that asks for the dictionary of size code dict (0..40).
type xzBlock struct {
	dict byte
	data string
}

// Dictionary size codes: (2 | c&1) << (c/2 + 11) bytes; 40 is 4 GiB - 1, the format's maximum.
const (
	dict4KiB  = 0
	dict8MiB  = 22
	dict64MiB = 28
	dict96MiB = 29
	dict1GiB  = 36
	dict4GiB  = 40
)

// xzStream writes one xz stream with CRC-32 checks, as the xz file format 1.2.0 lays it out.
func xzStream(blocks ...xzBlock) []byte {
	le32 := func(b []byte, v uint32) []byte { return binary.LittleEndian.AppendUint32(b, v) }
	pad4 := func(b []byte, n int) []byte {
		for ; n%4 != 0; n++ {
			b = append(b, 0)
		}
		return b
	}
	flags := []byte{0, 1} // check: CRC-32
	out := append(bytes.Clone(magicXz), flags...)
	out = le32(out, crc32.ChecksumIEEE(flags))
	var index []byte
	for _, b := range blocks {
		hdr := []byte{0, 0, lzma2ID, 1, b.dict} // size (set below), flags (one filter), LZMA2
		hdr = pad4(hdr, len(hdr)+4)
		hdr[0] = byte((len(hdr)+4)/4 - 1)
		hdr = le32(hdr, crc32.ChecksumIEEE(hdr))
		var data []byte
		for rest, first := b.data, true; rest != ""; first = false {
			n := min(len(rest), 1<<16)
			ctl := byte(2)
			if first {
				ctl = 1 // the first chunk resets the dictionary
			}
			data = append(data, ctl, byte((n-1)>>8), byte(n-1))
			data = append(data, rest[:n]...)
			rest = rest[n:]
		}
		data = append(data, 0) // end of the LZMA2 data
		out = append(out, hdr...)
		out = append(out, data...)
		out = pad4(out, len(data))
		out = le32(out, crc32.ChecksumIEEE([]byte(b.data)))
		index = binary.AppendUvarint(index, uint64(len(hdr)+len(data)+4)) // unpadded size
		index = binary.AppendUvarint(index, uint64(len(b.data)))
	}
	index = append(binary.AppendUvarint([]byte{0}, uint64(len(blocks))), index...)
	index = pad4(index, len(index))
	index = le32(index, crc32.ChecksumIEEE(index))
	out = append(out, index...)
	tail := le32(nil, uint32(len(index)/4-1)) // backward size
	tail = append(tail, flags...)
	out = le32(out, crc32.ChecksumIEEE(tail))
	out = append(out, tail...)
	return append(out, 'Y', 'Z')
}

// allocated returns the bytes f allocated on the heap.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func TestXzHandMadeStreams(t *testing.T) {
	// The hand-made streams are valid: the decoder reads them whole, the gate follows them.
	big := string(loggen.CLFText(200 << 10)) // several chunks
	in := xzStream(xzBlock{dict4KiB, "one\n"}, xzBlock{dict8MiB, big}, xzBlock{dict64MiB, "three\n"})
	in = append(append(in, 0, 0, 0, 0), xzStream(xzBlock{dict4KiB, "four\n"})...)
	out, z, err := readAll(t, bytes.NewReader(in))
	if err != nil || string(out) != "one\n"+big+"three\nfour\n" || z.Kind() != Xz {
		t.Fatalf("got %d bytes, %v", len(out), err)
	}
}

// TestXzDictCap checks that a block header asking for a dictionary above the cap is refused
// before the dictionary is allocated, whatever comes before it in the file.
func TestXzDictCap(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []byte
		want string // delivered before the refusal
		dict string
	}{
		{"1 GiB", xzStream(xzBlock{dict1GiB, "hello\n"}), "", "1 GiB"},
		{"4 GiB, the format's maximum", xzStream(xzBlock{dict4GiB, "hello\n"}), "", "4294967295 bytes"},
		{"just above the cap", xzStream(xzBlock{dict96MiB, "hello\n"}), "", "96 MiB"},
		{"third block", xzStream(xzBlock{dict4KiB, "one\n"}, xzBlock{dict4KiB, "two\n"}, xzBlock{dict1GiB, "three\n"}),
			"one\ntwo\n", "1 GiB"},
		{"second stream", append(append(xzStream(xzBlock{dict4KiB, "first\n"}), 0, 0, 0, 0),
			xzStream(xzBlock{dict4KiB, "second\n"}, xzBlock{dict4GiB, "third\n"})...),
			"first\nsecond\n", "4294967295 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var (
				out []byte
				err error
			)
			n := allocated(func() {
				z, nerr := NewReader(bytes.NewReader(tc.in))
				if nerr != nil {
					t.Fatal(nerr)
				}
				out, err = io.ReadAll(z)
				_ = z.Close()
			})
			if n > 4<<20 {
				t.Errorf("allocated %d bytes: the dictionary was made", n)
			}
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, ErrMemoryCap) || e.Kind != Xz {
				t.Fatalf("err = %v, want *Error wrapping ErrMemoryCap", err)
			}
			t.Log(err)
			if string(out) != tc.want || e.Decoded != int64(len(tc.want)) {
				t.Errorf("delivered %q (Decoded %d), want %q", out, e.Decoded, tc.want)
			}
			if msg := err.Error(); !strings.HasPrefix(msg, "xz stream refused after ") ||
				!strings.Contains(msg, "asks for a dictionary of "+tc.dict+": more memory than the cap (64 MiB)") {
				t.Errorf("error %q", msg)
			}
			// The offset is the refused header's: what came before it was consumed, not it.
			if e.Offset < xzHeaderLen || !bytes.HasPrefix(tc.in[e.Offset:], []byte{2, 0, lzma2ID, 1}) {
				t.Errorf("Offset = %d, not at a block header", e.Offset)
			}
		})
	}
}

func TestXzDictAtCap(t *testing.T) {
	out, _, err := readAll(t, bytes.NewReader(xzStream(xzBlock{dict64MiB, "at the cap\n"})))
	if err != nil || string(out) != "at the cap\n" {
		t.Errorf("got %q, %v", out, err)
	}
	// xz -9's dictionary, written by the test kit's encoder.
	data := loggen.CLFText(256 << 10)
	out, _, err = readAll(t, bytes.NewReader(testkit.CompressXz(t, data, 64<<20)))
	if err != nil || !bytes.Equal(out, data) {
		t.Errorf("xz -9 dictionary: %d of %d bytes, %v", len(out), len(data), err)
	}
}

func TestXzDictCapOption(t *testing.T) {
	in := xzStream(xzBlock{dict4KiB, "small\n"}, xzBlock{dict8MiB, "larger\n"})
	for _, tc := range []struct {
		cap  int64
		want string
		err  bool
	}{
		{0, "small\nlarger\n", false}, // the default, 64 MiB
		{8 << 20, "small\nlarger\n", false},
		{8<<20 - 1, "small\n", true},
		{4 << 10, "small\n", true},
	} {
		z, err := NewReaderOptions(bytes.NewReader(in), Auto, Options{XzMaxDict: tc.cap})
		if err != nil {
			t.Fatal(err)
		}
		out, err := io.ReadAll(z)
		if string(out) != tc.want || errors.Is(err, ErrMemoryCap) != tc.err || (err != nil) != tc.err {
			t.Errorf("cap %d: got %q, %v", tc.cap, out, err)
		}
		_ = z.Close()
	}
	if _, err := NewReaderOptions(bytes.NewReader(in), Auto, Options{XzMaxDict: -1}); err == nil {
		t.Error("negative cap accepted")
	}
}

// TestXzCutShort cuts hand-made and encoded streams at every byte: each cut is a truncation,
// delivers a prefix, and is never refused, not even a header cut before its dictionary size.
func TestXzCutShort(t *testing.T) {
	var multi bytes.Buffer
	w, err := xz.WriterConfig{DictCap: 4096, BlockSize: 1024}.NewWriter(&multi) // several blocks
	if err != nil {
		t.Fatal(err)
	}
	enc := loggen.CLFText(3 << 10)
	if _, err := w.Write(enc); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	hand := append(append(xzStream(xzBlock{dict4KiB, "one\n"}, xzBlock{dict8MiB, "two\n"}), 0, 0, 0, 0),
		xzStream(xzBlock{dict1GiB, "three\n"})...)
	for _, tc := range []struct {
		name string
		in   []byte
		orig string
		full error // the error reading the whole input
	}{
		{"encoded", multi.Bytes(), string(enc), nil},
		{"hand-made", hand, "one\ntwo\n", ErrMemoryCap},
	} {
		_, _, err := readAll(t, bytes.NewReader(tc.in))
		if !errors.Is(err, tc.full) {
			t.Fatalf("%s: whole: %v", tc.name, err)
		}
		for cut := len(magicXz); cut < len(tc.in); cut++ {
			in := tc.in[:cut]
			out, _, err := readAll(t, bytes.NewReader(in))
			if !strings.HasPrefix(tc.orig, string(out)) {
				t.Fatalf("%s cut at %d: delivered %q, not a prefix", tc.name, cut, out)
			}
			if errors.Is(err, ErrMemoryCap) && cut < bytes.Index(tc.in, []byte{2, 0, lzma2ID, 1, dict1GiB})+12 {
				t.Fatalf("%s cut at %d, inside the header: refused: %v", tc.name, cut, err)
			}
			if err == nil {
				// Only a cut after a whole stream and its padding reads as complete.
				if tc.name != "hand-made" || !isStreamEnd(hand, cut) {
					t.Fatalf("%s cut at %d of %d: no error", tc.name, cut, len(tc.in))
				}
				continue
			}
			var e *Error
			if !errors.As(err, &e) || (!errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, ErrMemoryCap)) {
				t.Fatalf("%s cut at %d of %d: %v, want a truncation", tc.name, cut, len(tc.in), err)
			}
		}
	}
}

// isStreamEnd reports whether in[:cut] ends with a stream footer and whole padding.
func isStreamEnd(in []byte, cut int) bool {
	i := cut
	for i > 0 && in[i-1] == 0 {
		i--
	}
	return (cut-i)%4 == 0 && i >= 2 && in[i-2] == 'Y' && in[i-1] == 'Z'
}

// TestXzGateErrors checks damage the gate finds while following the structure.
func TestXzGateErrors(t *testing.T) {
	good := xzStream(xzBlock{dict4KiB, "one\n"})
	flip := func(i int, b byte) []byte { in := bytes.Clone(good); in[i] = b; return in }
	for _, tc := range []struct {
		name string
		in   []byte
		want string
	}{
		{"block header crc", flip(xzHeaderLen+4, 0x22), "block header CRC mismatch"},
		{"chunk control", flip(xzHeaderLen+12, 0x03), "bad LZMA2 chunk control byte 0x3"},
		{"padding then a stream", append(append(bytes.Clone(good), 0), good...), "stream padding of 1 bytes before stream 2"},
	} {
		_, _, err := readAll(t, bytes.NewReader(tc.in))
		var e *Error
		if !errors.As(err, &e) || !strings.Contains(err.Error(), tc.want) || errors.Is(err, ErrMemoryCap) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestZstdWindowCap checks that a zstd frame asking for a window above 128 MiB fails at its
// header, before the window is allocated (WithDecoderMaxMemory).
func TestZstdWindowCap(t *testing.T) {
	// Frame header: no content size, no single segment; window descriptor: 2^30 bytes.
	in := append(bytes.Clone(magicZstd), 0x00, (30-10)<<3)
	in = append(in, 0x01, 0x00, 0x00) // a last raw block, empty
	var err error
	n := allocated(func() { _, _, err = readAll(t, bytes.NewReader(in)) })
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, zstd.ErrWindowSizeExceeded) || n > 4<<20 {
		t.Errorf("err = %v, %d bytes allocated", err, n)
	}
	t.Log(err)
}
