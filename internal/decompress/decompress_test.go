package decompress

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"go.uber.org/goleak"

	"github.com/mergelog/otelcol-mergelog/internal/loggen"
	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func fixture(t testing.TB, name string) []byte {
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readAll decodes r; the Reader is closed when the test ends.
func readAll(t *testing.T, r io.Reader) ([]byte, *Reader, error) {
	t.Helper()
	z, err := NewReader(r)
	if err != nil {
		t.Fatalf("NewReader: %v", err)
	}
	t.Cleanup(func() {
		if err := z.Close(); err != nil {
			t.Error(err)
		}
	})
	out, err := io.ReadAll(z)
	return out, z, err
}

func TestSniff(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Kind
	}{
		{"", Plain},
		{"\x1f", Plain},
		{"\x1f\x8b", Gzip},
		{"\x1f\x8b\x08\x00", Gzip},
		{"BZh", Plain},
		{"BZh9", Bzip2},
		{"BZh1", Bzip2},
		{"BZh0", Plain},
		{"BZhang 1.2.3.4 GET /", Plain},
		{"\xfd7zXZ", Plain},
		{"\xfd7zXZ\x00", Xz},
		{"\x28\xb5\x2f", Plain},
		{"\x28\xb5\x2f\xfd", Zstd},
		{"127.0.0.1 - -", Plain},
	} {
		if got := Sniff([]byte(tc.in)); got != tc.want {
			t.Errorf("Sniff(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestParseKind(t *testing.T) {
	for in, want := range map[string]Kind{
		"auto": Auto, "AUTO": Auto, "": Plain, "none": Plain, "plain": Plain,
		"gzip": Gzip, "gz": Gzip, "bzip2": Bzip2, "bz2": Bzip2, "xz": Xz, "zstd": Zstd, "zst": Zstd,
	} {
		got, err := ParseKind(in)
		if err != nil || got != want {
			t.Errorf("ParseKind(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := ParseKind("lz4"); err == nil || !strings.Contains(err.Error(), `"lz4"`) {
		t.Errorf("ParseKind(lz4) error = %v", err)
	}
	for k := Auto; k <= Zstd; k++ {
		if got, err := ParseKind(k.String()); err != nil || got != k {
			t.Errorf("ParseKind(%v.String()) = %v, %v", k, got, err)
		}
	}
	if s := Kind(42).String(); s != "Kind(42)" {
		t.Errorf("Kind(42).String() = %q", s)
	}
}

// codec writes test data as one kind.
type codec struct {
	kind   Kind
	format testkit.Format // "" for Plain
}

// enc compresses data as c's kind (Plain: as it is).
func (c codec) enc(t testing.TB, data []byte) []byte {
	if c.kind == Plain {
		return data
	}
	return testkit.Compress(t, c.format, data)
}

var codecs = []codec{
	{Plain, ""},
	{Gzip, testkit.Gzip},
	{Bzip2, testkit.Bzip2},
	{Xz, testkit.Xz},
	{Zstd, testkit.Zstd},
}

func TestRoundTrip(t *testing.T) {
	data := loggen.CLFText(1 << 20) // above 900 kB: two bzip2 blocks
	for _, tc := range codecs {
		t.Run(tc.kind.String(), func(t *testing.T) {
			comp := tc.enc(t, data)
			// OneByteReader and DataErrReader stress the peek and the decoders' reads.
			for name, r := range map[string]io.Reader{
				"bytes":    bytes.NewReader(comp),
				"dataerr":  iotest.DataErrReader(bytes.NewReader(comp)),
				"halfread": iotest.HalfReader(bytes.NewReader(comp)),
			} {
				out, z, err := readAll(t, r)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if z.Kind() != tc.kind {
					t.Errorf("%s: Kind = %v, want %v", name, z.Kind(), tc.kind)
				}
				if !bytes.Equal(out, data) {
					t.Fatalf("%s: got %d bytes, want %d", name, len(out), len(data))
				}
				if got := z.CompressedOffset(); got != int64(len(comp)) {
					t.Errorf("%s: CompressedOffset = %d, want %d", name, got, len(comp))
				}
			}
		})
	}
}

func TestFixtures(t *testing.T) {
	want := fixture(t, "access.log")
	for file, kind := range map[string]Kind{
		"access.log.bz2": Bzip2, "access.log.xz": Xz, "access.log.zst": Zstd,
		"twice.log.bz2": Bzip2, "twice.log.xz": Xz,
	} {
		out, z, err := readAll(t, bytes.NewReader(fixture(t, file)))
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		w := want
		if strings.HasPrefix(file, "twice") { // concatenated streams, as bzip2 -d and xz -d read them
			w = append(append([]byte(nil), want...), want...)
		}
		if z.Kind() != kind || !bytes.Equal(out, w) {
			t.Errorf("%s: kind %v, got %q", file, z.Kind(), out)
		}
	}
}

func TestGzipMultiMember(t *testing.T) {
	a, b := []byte("first member\n"), []byte("second member, no newline")
	comp := append(testkit.Compress(t, testkit.Gzip, a), testkit.Compress(t, testkit.Gzip, b)...)
	out, _, err := readAll(t, bytes.NewReader(comp))
	if err != nil {
		t.Fatal(err)
	}
	if want := string(a) + string(b); string(out) != want {
		t.Errorf("got %q, want %q", out, want)
	}
}

func TestZstdMultiFrame(t *testing.T) {
	comp := append(testkit.Compress(t, testkit.Zstd, []byte("one\n")), testkit.Compress(t, testkit.Zstd, []byte("two\n"))...)
	out, _, err := readAll(t, bytes.NewReader(comp))
	if err != nil || string(out) != "one\ntwo\n" {
		t.Errorf("got %q, %v", out, err)
	}
}

// TestPipe feeds every input one byte per write through a pipe, as stdin
// may deliver it, including inputs shorter than any magic.
func TestPipe(t *testing.T) {
	for _, tc := range []struct {
		in      []byte
		kind    Kind
		want    string // decoded; the input itself for Plain
		wantErr bool
	}{
		{nil, Plain, "", false},
		{[]byte("a"), Plain, "a", false},
		{[]byte("ab"), Plain, "ab", false},
		{[]byte("abc"), Plain, "abc", false},
		{[]byte{0x1f}, Plain, "\x1f", false},
		{[]byte{0x28, 0xb5}, Plain, "(\xb5", false},
		{[]byte("BZh"), Plain, "BZh", false},
		{[]byte{0xfd, '7', 'z'}, Plain, "\xfd7z", false},
		{[]byte("plain text\n"), Plain, "plain text\n", false},
		{[]byte("BZh9"), Bzip2, "", true}, // a bzip2 stream cut after its magic
		{testkit.Compress(t, testkit.Gzip, []byte("zipped\n")), Gzip, "zipped\n", false},
		{testkit.Compress(t, testkit.Zstd, []byte("zstd\n")), Zstd, "zstd\n", false},
		{testkit.Compress(t, testkit.Xz, []byte("xz\n")), Xz, "xz\n", false},
	} {
		pr, pw := io.Pipe()
		go func() {
			for j := range tc.in {
				if _, err := pw.Write(tc.in[j : j+1]); err != nil {
					return
				}
			}
			_ = pw.Close() // a PipeWriter's Close always returns nil
		}()
		out, z, err := readAll(t, pr)
		_ = pr.Close() // likewise; it ends the writer if the reader stopped early
		if z.Kind() != tc.kind || (err != nil) != tc.wantErr || string(out) != tc.want {
			t.Errorf("%q: kind %v, got %q, %v; want %v, %q", tc.in, z.Kind(), out, err, tc.kind, tc.want)
		}
	}
}

// TestPipeDoesNotWait checks that a plain stream is recognised from its first
// byte, without waiting for six bytes that a slow writer has not sent yet.
func TestPipeDoesNotWait(t *testing.T) {
	pr, pw := io.Pipe()
	defer func() { _ = pr.Close() }()            // a PipeReader's Close always returns nil
	go func() { _, _ = pw.Write([]byte("x")) }() // fails only once the reader is closed
	z, err := NewReader(pr)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 10)
	n, err := z.Read(buf)
	if err != nil || string(buf[:n]) != "x" || z.Kind() != Plain {
		t.Errorf("got %q, %v, kind %v", buf[:n], err, z.Kind())
	}
	_ = pw.Close()
	if n, err := z.Read(buf); n != 0 || err != io.EOF {
		t.Errorf("after close: %d, %v", n, err)
	}
}

// TestPlainGrowing reads a file to EOF, appends to it, and reads on: the
// receiver tails live files through a Reader.
func TestPlainGrowing(t *testing.T) {
	path := testkit.WriteFile(t, filepath.Join(t.TempDir(), "live.log"), "one\n")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }() // read only
	z, err := NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(z)
	if err != nil || string(out) != "one\n" {
		t.Fatalf("got %q, %v", out, err)
	}
	testkit.AppendFile(t, path, "two\n")
	out, err = io.ReadAll(z)
	if err != nil || string(out) != "two\n" {
		t.Fatalf("after append: got %q, %v", out, err)
	}
	if got := z.CompressedOffset(); got != 8 {
		t.Errorf("CompressedOffset = %d, want 8", got)
	}
}

func TestForcedKind(t *testing.T) {
	comp := testkit.Compress(t, testkit.Gzip, []byte("hello\n"))
	z, err := NewReaderKind(bytes.NewReader(comp), Plain)
	if err != nil {
		t.Fatal(err)
	}
	if out, _ := io.ReadAll(z); !bytes.Equal(out, comp) {
		t.Error("Plain did not pass gzip bytes through")
	}
	z, err = NewReaderKind(strings.NewReader("not gzip at all"), Gzip)
	if err != nil {
		t.Fatal(err)
	}
	var e *Error
	if _, err := io.ReadAll(z); !errors.As(err, &e) || e.Kind != Gzip {
		t.Errorf("forced gzip on text: %v", err)
	}
	if _, err := NewReaderKind(strings.NewReader(""), Kind(9)); err == nil {
		t.Error("invalid kind accepted")
	}
}

// TestCorrupt checks that damage yields *Error, and that the bytes decoded
// before it are delivered and are a prefix of the original.
func TestCorrupt(t *testing.T) {
	data := loggen.CLFText(256 << 10)
	gz := testkit.Compress(t, testkit.Gzip, data)
	badCRC := bytes.Clone(gz)
	badCRC[len(badCRC)-8] ^= 0xff
	zs, xzb := testkit.Compress(t, testkit.Zstd, data), testkit.Compress(t, testkit.Xz, data)
	// The fixture runs without the bzip2 command.
	bzFixture, bzText := fixture(t, "access.log.bz2"), fixture(t, "access.log")
	garbage := func(magic []byte) []byte {
		return append(bytes.Clone(magic), bytes.Repeat([]byte("garbage!"), 64)...)
	}
	type tcase struct {
		name      string
		in        []byte
		orig      []byte // what the delivered bytes must be a prefix of
		kind      Kind
		truncated bool
		minOut    int // bytes that must have been delivered before the error
	}
	cases := []tcase{
		{"gzip truncated", gz[:len(gz)/2], data, Gzip, true, len(data) / 4},
		{"gzip bad crc", badCRC, data, Gzip, false, len(data)},
		{"gzip trailing garbage", append(bytes.Clone(gz), "not a gzip member"...), data, Gzip, false, len(data)},
		{"gzip garbage", garbage(magicGzip), nil, Gzip, false, 0},
		{"gzip header only", magicGzip, nil, Gzip, true, 0},
		{"zstd truncated", zs[:len(zs)*3/4], data, Zstd, true, len(data) / 4}, // decoded per 128 KiB block
		{"zstd garbage", garbage(magicZstd), nil, Zstd, false, 0},
		// ulikunitz/xz delivers an LZMA2 chunk (up to 64 KiB compressed) once it has
		// all of it: this input is a single chunk.
		{"xz truncated", xzb[:len(xzb)*3/4], data, Xz, true, 0},
		// ulikunitz/xz alone ends these without error, as if the stream were complete.
		{"xz cut after its header", xzb[:12], data, Xz, true, 0},
		{"xz cut in a block header", xzb[:15], data, Xz, true, 0},
		{"xz garbage", garbage(magicXz), nil, Xz, false, 0},
		{"bzip2 garbage", garbage([]byte("BZh9")), nil, Bzip2, false, 0},
		{"bzip2 fixture truncated", bzFixture[:len(bzFixture)-10], bzText, Bzip2, true, 0},
	}
	if testkit.CanCompress(testkit.Bzip2) {
		big := loggen.CLFText(2 << 20)
		bz := testkit.Compress(t, testkit.Bzip2, big) // three 900 kB blocks: those before the cut are delivered
		cases = append(cases, tcase{"bzip2 truncated", bz[:len(bz)*3/4], big, Bzip2, true, 800_000})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, z, err := readAll(t, bytes.NewReader(tc.in))
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v (%T), want *Error", err, err)
			}
			t.Log(err)
			if e.Kind != tc.kind || z.Kind() != tc.kind {
				t.Errorf("kind %v, want %v", e.Kind, tc.kind)
			}
			if e.Decoded != int64(len(out)) {
				t.Errorf("Decoded = %d, delivered %d", e.Decoded, len(out))
			}
			if e.Offset <= 0 || e.Offset > int64(len(tc.in)) {
				t.Errorf("Offset = %d, input %d", e.Offset, len(tc.in))
			}
			if len(out) < tc.minOut || !bytes.HasPrefix(tc.orig, out) {
				t.Errorf("delivered %d bytes (want >= %d, a prefix of the input)", len(out), tc.minOut)
			}
			word := "corrupt"
			if tc.truncated {
				word = "truncated"
			}
			want := fmt.Sprintf("%v stream %s after %d compressed bytes (%d bytes decoded): ", tc.kind, word, e.Offset, len(out))
			if !strings.HasPrefix(err.Error(), want) {
				t.Errorf("error %q, want prefix %q", err, want)
			}
			if _, err2 := z.Read(make([]byte, 10)); err2 != err {
				t.Errorf("error not sticky: %v", err2)
			}
		})
	}
}

// TestSourceError checks that a failing underlying reader is reported as
// itself, not as corrupt data.
func TestSourceError(t *testing.T) {
	boom := errors.New("disk on fire")
	gz := testkit.Compress(t, testkit.Gzip, loggen.CLFText(256<<10))
	for _, in := range [][]byte{gz, []byte("plain text")} {
		r := io.MultiReader(bytes.NewReader(in[:len(in)/2]), iotest.ErrReader(boom))
		_, _, err := readAll(t, r)
		var e *Error
		if !errors.Is(err, boom) || errors.As(err, &e) {
			t.Errorf("err = %v, want %v", err, boom)
		}
	}
	if _, err := NewReader(iotest.ErrReader(boom)); !errors.Is(err, boom) {
		t.Errorf("NewReader err = %v", err)
	}
}

func TestClose(t *testing.T) {
	for _, in := range [][]byte{[]byte("plain"), testkit.Compress(t, testkit.Zstd, []byte("zstd data"))} {
		z, err := NewReader(bytes.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := z.Read(make([]byte, 2)); err != nil {
			t.Fatal(err)
		}
		if err := z.Close(); err != nil {
			t.Fatal(err)
		}
		if err := z.Close(); err != nil {
			t.Fatal("second Close:", err)
		}
		if _, err := z.Read(make([]byte, 2)); err == nil {
			t.Error("Read after Close succeeded")
		}
	}
}

func FuzzNewReader(f *testing.F) {
	f.Add([]byte("plain line\n"))
	f.Add([]byte{})
	f.Add([]byte("BZh9"))
	f.Add(testkit.Compress(f, testkit.Gzip, []byte("gzip line\n")))
	f.Add(testkit.Compress(f, testkit.Zstd, []byte("zstd line\n")))
	f.Add(testkit.Compress(f, testkit.Xz, []byte("xz line\n")))
	for _, name := range []string{"access.log.bz2", "access.log.xz", "access.log.zst"} {
		f.Add(fixture(f, name))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		z, err := NewReader(bytes.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		defer func() {
			if err := z.Close(); err != nil {
				t.Error(err)
			}
		}()
		// The limit keeps a decompression bomb from running for long.
		out, err := io.ReadAll(io.LimitReader(z, 16<<20))
		if z.Kind() == Plain && (err != nil || !bytes.Equal(out, in)) {
			t.Fatalf("plain input changed: %v", err)
		}
		var e *Error
		if err != nil && !errors.As(err, &e) {
			t.Fatalf("error %v (%T) is not *Error", err, err)
		}
	})
}

// FuzzRoundTrip checks, for any data, that each codec's stream decodes back to it, and that the
// stream cut anywhere decodes to a prefix of it and then an *Error that says truncated (a cut
// inside the magic leaves plain text, passed through as it is). Bzip2 has no writer here: its
// fixture is cut instead, whatever the data.
func FuzzRoundTrip(f *testing.F) {
	bz, bzText := fixture(f, "access.log.bz2"), fixture(f, "access.log")
	f.Add([]byte("a line\n"), uint8(0), uint16(12))
	f.Add([]byte{}, uint8(2), uint16(3))
	f.Add(loggen.CLFText(4<<10), uint8(3), uint16(500))
	f.Fuzz(func(t *testing.T, data []byte, codec uint8, cut uint16) {
		tc := codecs[1+int(codec)%(len(codecs)-1)] // not Plain
		var comp []byte
		switch tc.kind {
		case Bzip2:
			comp, data = bz, bzText
		case Xz:
			comp = testkit.CompressXz(t, data, 4096) // the smallest dictionary: the default would starve the fuzzer
		default:
			comp = tc.enc(t, data)
		}
		out, z, err := readAll(t, bytes.NewReader(comp))
		if err != nil || z.Kind() != tc.kind || !bytes.Equal(out, data) {
			t.Fatalf("%v: kind %v, %d of %d bytes back, %v", tc.kind, z.Kind(), len(out), len(data), err)
		}

		in := comp[:int(cut)%len(comp)]
		out, z, err = readAll(t, bytes.NewReader(in))
		if Sniff(in) == Plain {
			if err != nil || !bytes.Equal(out, in) {
				t.Fatalf("%v cut to %d bytes, inside its magic: %q, %v", tc.kind, len(in), out, err)
			}
			return
		}
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, io.ErrUnexpectedEOF) || z.Kind() != tc.kind {
			t.Fatalf("%v cut to %d of %d bytes: kind %v, err %v; want a truncation", tc.kind, len(in), len(comp), z.Kind(), err)
		}
		if !bytes.HasPrefix(data, out) || e.Decoded != int64(len(out)) {
			t.Fatalf("%v cut to %d of %d bytes: %d bytes decoded (Decoded %d), not a prefix of the %d", tc.kind, len(in), len(comp), len(out), e.Decoded, len(data))
		}
	})
}
