package linereader

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/require"

	"go.uber.org/goleak"

	"github.com/mergelog/otelcol-mergelog/internal/loggen"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// growingReader serves data[:avail] in reads of at most chunk bytes and
// returns io.EOF at avail, like a file that a writer appends to.
type growingReader struct {
	data  []byte
	pos   int
	avail int
	chunk int
}

func (g *growingReader) Read(p []byte) (int, error) {
	if g.pos >= g.avail {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), g.chunk)], g.data[g.pos:g.avail])
	g.pos += n
	return n, nil
}

type line struct {
	text  string
	split bool
}

// readAll returns the lines of r up to its first error, checking Offset
// against the bytes consumed as it goes.
func readAll(t testing.TB, r *Reader) ([]line, error) {
	t.Helper()
	var lines []line
	consumed := r.Offset()
	for {
		l, err := r.Next()
		if err != nil {
			if l != nil {
				t.Fatalf("line %q with error %v", l, err)
			}
			return lines, err
		}
		consumed += int64(len(l))
		if !r.Split() {
			consumed++
		}
		if r.Offset() != consumed {
			t.Fatalf("Offset = %d after %q, want %d", r.Offset(), l, consumed)
		}
		lines = append(lines, line{string(l), r.Split()})
	}
}

func TestLines(t *testing.T) {
	long := strings.Repeat("0123456789", 100) // 1000 bytes
	for _, tc := range []struct {
		name    string
		in      string
		opts    Options
		want    []line
		partial string
	}{
		{"empty", "", Options{}, nil, ""},
		{"one line", "a\n", Options{}, []line{{"a", false}}, ""},
		{"no newline at end", "a\nb", Options{}, []line{{"a", false}}, "b"},
		{"only partial", "abc", Options{}, nil, "abc"},
		{"only newlines", "\n\n\n", Options{}, []line{{"", false}, {"", false}, {"", false}}, ""},
		{"crlf kept", "a\r\nb\r\n\r", Options{}, []line{{"a\r", false}, {"b\r", false}}, "\r"},
		{"nul and invalid utf-8", "\x00\xff\xfe\n\xc3(\n", Options{}, []line{{"\x00\xff\xfe", false}, {"\xc3(", false}}, ""},
		{"longer than buffer", "x\n" + long + "\n" + long, Options{BufSize: 16},
			[]line{{"x", false}, {long, false}}, long},
		{"split", "abcdefgh\nabcd\nabcde\n", Options{BufSize: 2, MaxLineSize: 4},
			[]line{{"abcd", true}, {"efgh", false}, {"abcd", false}, {"abcd", true}, {"e", false}}, ""},
		{"split long", long + "\n", Options{BufSize: 16, MaxLineSize: 300},
			[]line{{long[:300], true}, {long[300:600], true}, {long[600:900], true}, {long[900:], false}}, ""},
		{"split partial", "abcdefghij", Options{MaxLineSize: 4},
			[]line{{"abcd", true}, {"efgh", true}}, "ij"},
		{"max exactly", "abcd\nabcd", Options{BufSize: 1, MaxLineSize: 4}, []line{{"abcd", false}}, "abcd"},
	} {
		for _, chunk := range []int{1, 3, 1 << 20} {
			t.Run(fmt.Sprintf("%s/chunk%d", tc.name, chunk), func(t *testing.T) {
				r := New(&growingReader{data: []byte(tc.in), avail: len(tc.in), chunk: chunk}, tc.opts)
				lines, err := readAll(t, r)
				if err != io.EOF {
					t.Fatalf("err = %v", err)
				}
				if fmt.Sprint(lines) != fmt.Sprint(tc.want) {
					t.Errorf("lines %+v, want %+v", lines, tc.want)
				}
				if string(r.Partial()) != tc.partial {
					t.Errorf("Partial = %q, want %q", r.Partial(), tc.partial)
				}
				if want := int64(len(tc.in) - len(tc.partial)); r.Offset() != want {
					t.Errorf("Offset = %d, want %d", r.Offset(), want)
				}
			})
		}
	}
}

func TestNeverTruncated(t *testing.T) {
	big := bytes.Repeat([]byte("y"), 3<<20+17)
	in := append(append([]byte("a\n"), big...), "\nb\n"...)
	r := New(iotest.HalfReader(bytes.NewReader(in)), Options{BufSize: 4096})
	lines, err := readAll(t, r)
	if err != io.EOF || len(lines) != 3 || lines[1].text != string(big) || lines[2].text != "b" {
		t.Fatalf("got %d lines, %v", len(lines), err)
	}
}

func TestSplitReassembles(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var in []byte
	for range 2000 {
		in = append(in, bytes.Repeat([]byte{byte('a' + rng.IntN(26))}, rng.IntN(3000))...)
		in = append(in, '\n')
	}
	const maxLine = 1000
	r := New(bytes.NewReader(in), Options{BufSize: 512, MaxLineSize: maxLine})
	lines, err := readAll(t, r)
	if err != io.EOF {
		t.Fatal(err)
	}
	var out []byte
	for _, l := range lines {
		if len(l.text) > maxLine || l.split && len(l.text) != maxLine {
			t.Fatalf("line of %d bytes, split %v", len(l.text), l.split)
		}
		out = append(out, l.text...)
		if !l.split {
			out = append(out, '\n')
		}
	}
	if !bytes.Equal(out, in) {
		t.Error("pieces do not reassemble the input")
	}
	if len(r.buf) > maxLine+1 {
		t.Errorf("buffer grew to %d", len(r.buf))
	}
}

// TestFollow appends to a file after io.EOF: Next goes on, and a line that
// was partial at EOF comes out whole.
func TestFollow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "live.log")
	w, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { require.NoError(t, w.Close()) }()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { require.NoError(t, f.Close()) }()
	r := New(f, Options{BufSize: 8})
	var got []string
	for _, chunk := range []string{"", "one\ntw", "o\nthree is lo", "nger than the buffer\n", "\n", "four"} {
		_, err := w.WriteString(chunk)
		require.NoError(t, err)
		lines, err := readAll(t, r)
		if err != io.EOF {
			t.Fatal(err)
		}
		for _, l := range lines {
			got = append(got, l.text)
		}
	}
	if want := []string{"one", "two", "three is longer than the buffer", ""}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if string(r.Partial()) != "four" || r.Offset() != 41 {
		t.Errorf("Partial %q, Offset %d", r.Partial(), r.Offset())
	}
	if p := r.ConsumePartial(); string(p) != "four" || r.Offset() != 45 || len(r.Partial()) != 0 {
		t.Errorf("ConsumePartial %q, Offset %d", p, r.Offset())
	}
	_, err = w.WriteString(" more\n")
	require.NoError(t, err)
	if l, err := r.Next(); string(l) != " more" || err != nil || r.Offset() != 51 {
		t.Errorf("after ConsumePartial: %q, %v, Offset %d", l, err, r.Offset())
	}
}

// TestPipe follows a pipe: lines come out as they are written, before EOF.
func TestPipe(t *testing.T) {
	pr, pw := io.Pipe()
	r := New(pr, Options{})
	written := make(chan error, 2)
	go func() {
		_, err := pw.Write([]byte("first\nsec"))
		written <- err
	}()
	if l, err := r.Next(); string(l) != "first" || err != nil {
		t.Fatalf("%q, %v", l, err)
	}
	go func() {
		_, err := pw.Write([]byte("ond\n"))
		written <- errors.Join(err, pw.Close())
	}()
	if l, err := r.Next(); string(l) != "second" || err != nil {
		t.Fatalf("%q, %v", l, err)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("err = %v", err)
	}
	for range 2 {
		require.NoError(t, <-written)
	}
}

func TestErrorAfterLines(t *testing.T) {
	boom := errors.New("boom")
	src := io.MultiReader(strings.NewReader("a\nb\nc"), iotest.ErrReader(boom))
	r := New(src, Options{})
	lines, err := readAll(t, r)
	if err != boom || len(lines) != 2 || string(r.Partial()) != "c" {
		t.Errorf("lines %+v, err %v, partial %q", lines, err, r.Partial())
	}
	if _, err := r.Next(); err != boom { // ErrReader fails again: not sticky here either
		t.Errorf("second Next: %v", err)
	}
}

type zeroReader struct{}

func (zeroReader) Read([]byte) (int, error) { return 0, nil }

func TestNoProgress(t *testing.T) {
	if _, err := New(zeroReader{}, Options{}).Next(); err != io.ErrNoProgress {
		t.Errorf("err = %v", err)
	}
}

func TestReset(t *testing.T) {
	r := New(strings.NewReader("a\nbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"), Options{BufSize: 4, MaxLineSize: 8})
	if _, err := readAll(t, r); err != io.EOF {
		t.Fatalf("before Reset: %v", err)
	}
	r.Reset(strings.NewReader("c\nd"), 100)
	lines, err := readAll(t, r)
	if err != io.EOF || fmt.Sprint(lines) != fmt.Sprint([]line{{"c", false}}) || r.Offset() != 102 || string(r.Partial()) != "d" || r.Split() {
		t.Errorf("after Reset: %+v, %v, Offset %d, Partial %q", lines, err, r.Offset(), r.Partial())
	}
}

// ResetPending goes on with a partial line kept by the caller as if the Reader had kept it:
// the pending bytes come first, longer than the buffer or not, cut at MaxLineSize alike.
func TestResetPending(t *testing.T) {
	for _, tc := range []struct {
		name    string
		pending string
		rest    string
		want    []line
		partial string
	}{
		{"line completed", "ab", "c\nd", []line{{"abc", false}}, "d"},
		{"nothing more", "ab", "", nil, "ab"},
		{"pending longer than the buffer", "abcdef", "g\n", []line{{"abcdefg", false}}, ""},
		{"cut at MaxLineSize", "abcdefgh", "ij\n", []line{{"abcdefgh", true}, {"ij", false}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := New(nil, Options{BufSize: 4, MaxLineSize: 8})
			pending := []byte(tc.pending)
			r.ResetPending(strings.NewReader(tc.rest), 100, pending)
			copy(pending, "XXXXXXXX") // copied: the caller may reuse its slice
			lines, err := readAll(t, r)
			if err != io.EOF || fmt.Sprint(lines) != fmt.Sprint(tc.want) || string(r.Partial()) != tc.partial {
				t.Errorf("got %+v, %v, Partial %q; want %+v, Partial %q", lines, err, r.Partial(), tc.want, tc.partial)
			}
			if want := int64(100 + len(tc.pending) + len(tc.rest) - len(tc.partial)); r.Offset() != want {
				t.Errorf("Offset = %d, want %d", r.Offset(), want)
			}
		})
	}
}

func TestBytes(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    []line
		partial string
	}{
		{"", nil, ""},
		{"a\n", []line{{"a", false}}, ""},
		{"a\nb", []line{{"a", false}}, "b"},
		{"\n\n", []line{{"", false}, {"", false}}, ""},
		{"a\r\n\x00\xff\n\r", []line{{"a\r", false}, {"\x00\xff", false}}, "\r"},
		{strings.Repeat("y", 1<<20) + "\nz", []line{{strings.Repeat("y", 1<<20), false}}, "z"},
	} {
		data := []byte(tc.in)
		r := NewBytes(data)
		lines, err := readAll(t, r)
		if err != io.EOF || fmt.Sprint(lines) != fmt.Sprint(tc.want) || string(r.Partial()) != tc.partial {
			t.Errorf("%.20q: %+v %v, Partial %q", tc.in, lines, err, r.Partial())
		}
		for range 2 { // the end stays the end, and the partial line stays where it is
			if l, err := r.Next(); l != nil || err != io.EOF || string(r.Partial()) != tc.partial {
				t.Errorf("%.20q: Next after the end = %q, %v, Partial %q", tc.in, l, err, r.Partial())
			}
		}
		if p := r.Partial(); len(p) > 0 && &p[0] != &data[len(data)-len(p)] {
			t.Errorf("%.20q: Partial is a copy, not a slice of data", tc.in)
		}
		if string(data) != tc.in {
			t.Errorf("%.20q: data written to", tc.in)
		}
	}
}

func TestBytesLinesAreSlicesOfData(t *testing.T) {
	data := []byte("ab\ncd\n")
	r := NewBytes(data)
	first, _ := r.Next()
	second, _ := r.Next()
	// Both stay valid: nothing is moved or overwritten.
	if &first[0] != &data[0] || &second[0] != &data[3] || string(first) != "ab" || string(second) != "cd" {
		t.Errorf("lines %q %q are not slices of data", first, second)
	}
	// An append copies instead of writing over the next line (or into a read-only mapping).
	if _ = append(first, 'x'); cap(first) != len(first) || string(data) != "ab\ncd\n" {
		t.Errorf("cap %d for %q; data %q", cap(first), first, data)
	}
}

func TestBytesReset(t *testing.T) {
	data := []byte("a\nb")
	r := NewBytes(data)
	if _, err := readAll(t, r); err != io.EOF {
		t.Fatalf("before Reset: %v", err)
	}
	r.Reset(strings.NewReader("cccc\nd"), 10)
	lines, err := readAll(t, r)
	if err != io.EOF || fmt.Sprint(lines) != fmt.Sprint([]line{{"cccc", false}}) || r.Offset() != 15 || string(r.Partial()) != "d" {
		t.Errorf("after Reset: %+v, %v, Offset %d, Partial %q", lines, err, r.Offset(), r.Partial())
	}
	if string(data) != "a\nb" {
		t.Errorf("Reset read into data: %q", data)
	}
}

func TestNoAllocs(t *testing.T) {
	data := loggen.CLFText(1 << 20)
	src := bytes.NewReader(data)
	r := New(src, Options{})
	allocs := testing.AllocsPerRun(10, func() {
		src.Reset(data)
		r.Reset(src, 0)
		for {
			if _, err := r.Next(); err != nil {
				break
			}
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocs per pass", allocs)
	}
}

func FuzzLines(f *testing.F) {
	f.Add([]byte("a\nb\r\n\nc"), uint16(1), uint8(0), uint8(1), uint16(3))
	f.Add([]byte("abcdefgh\nij"), uint16(3), uint8(4), uint8(2), uint16(5))
	f.Add([]byte("\n\n\n\n"), uint16(0), uint8(1), uint8(0), uint16(0))
	f.Fuzz(func(t *testing.T, in []byte, bufSize uint16, maxLine, chunk uint8, cut uint16) {
		// The input arrives in two parts, with io.EOF between them, as a file grows.
		cutAt := int(cut) % (len(in) + 1)
		src := &growingReader{data: in, avail: cutAt, chunk: int(chunk) + 1}
		r := New(src, Options{BufSize: int(bufSize % 512), MaxLineSize: int(maxLine)})
		var out []byte
		for part := range 2 {
			lines, err := readAll(t, r)
			if err != io.EOF {
				t.Fatal(err)
			}
			for _, l := range lines {
				if strings.IndexByte(l.text, '\n') >= 0 {
					t.Fatalf("line %q holds a newline", l.text)
				}
				if maxLine > 0 && (len(l.text) > int(maxLine) || l.split && len(l.text) != int(maxLine)) {
					t.Fatalf("line of %d bytes, split %v, max %d", len(l.text), l.split, maxLine)
				}
				out = append(out, l.text...)
				if !l.split {
					out = append(out, '\n')
				}
			}
			if part == 0 {
				src.avail = len(in)
			}
		}
		if int(r.Offset()) != len(out) {
			t.Fatalf("Offset %d, consumed %d", r.Offset(), len(out))
		}
		out = append(out, r.Partial()...)
		if !bytes.Equal(out, in) {
			t.Fatalf("lines + partial = %q, want %q", out, in)
		}

		// NewBytes gives the same lines as New without MaxLineSize, out of in itself.
		want, err := readAll(t, New(bytes.NewReader(in), Options{BufSize: int(bufSize % 512)}))
		if err != io.EOF {
			t.Fatal(err)
		}
		orig := bytes.Clone(in)
		br := NewBytes(in)
		got, err := readAll(t, br)
		if err != io.EOF || fmt.Sprint(got) != fmt.Sprint(want) || int(br.Offset())+len(br.Partial()) != len(in) {
			t.Fatalf("NewBytes: %+v %v, want %+v", got, err, want)
		}
		if !bytes.Equal(in, orig) {
			t.Fatal("NewBytes wrote to its data")
		}
	})
}

func BenchmarkNext(b *testing.B) {
	data := loggen.CLFText(64 << 20)
	src := bytes.NewReader(data)
	b.Run("impl=ours", func(b *testing.B) {
		r := New(src, Options{})
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			src.Reset(data)
			r.Reset(src, 0)
			for {
				if _, err := r.Next(); err != nil {
					break
				}
			}
		}
	})
	b.Run("impl=bufio-scanner", func(b *testing.B) {
		buf := make([]byte, DefaultBufSize)
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			src.Reset(data)
			s := bufio.NewScanner(src)
			s.Buffer(buf, 1<<30)
			for s.Scan() {
				_ = s.Bytes()
			}
		}
	})
}

// TestMultiByteNewline cuts UTF-16LE text at its encoded newline ("\n\x00"), however the reads
// split it, with and without MaxLineSize: the lines and pieces put back together with the
// newline are the input, and Offset counts the stream's bytes.
func TestMultiByteNewline(t *testing.T) {
	nl := []byte("\n\x00")
	rng := rand.New(rand.NewPCG(7, 8))
	var in []byte
	var want []string
	for range 500 {
		var l []byte
		for range rng.IntN(40) {
			l = append(l, byte('a'+rng.IntN(26)), 0)
		}
		want = append(want, string(l))
		in = append(append(in, l...), nl...)
	}
	for _, maxLine := range []int{0, 16} {
		for _, chunk := range []int{1, 3, 7, 4096} {
			r := New(&growingReader{data: in, avail: len(in), chunk: chunk}, Options{BufSize: 16, MaxLineSize: maxLine, Newline: nl})
			var out []byte
			var whole []string
			var cur []byte
			for {
				l, err := r.Next()
				if err != nil {
					require.ErrorIs(t, err, io.EOF)
					break
				}
				if maxLine > 0 {
					require.LessOrEqual(t, len(l), maxLine)
				}
				out = append(out, l...)
				cur = append(cur, l...)
				if !r.Split() {
					out = append(out, nl...)
					whole = append(whole, string(cur))
					cur = nil
				}
				require.Equal(t, int64(len(out)), r.Offset(), "maxLine %d chunk %d", maxLine, chunk)
			}
			require.Equal(t, in, out, "maxLine %d chunk %d", maxLine, chunk)
			require.Equal(t, want, whole, "maxLine %d chunk %d", maxLine, chunk)
			require.Empty(t, r.Partial())
		}
	}
}
