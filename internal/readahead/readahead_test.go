package readahead

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func randomBytes(n int) []byte {
	b := make([]byte, n)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

func TestCopy(t *testing.T) {
	// TestReader reads a few bytes at a time: keep the data small for -race.
	data := randomBytes(20_000 + 123)
	for _, tc := range []struct{ bufSize, nbufs int }{{1, 2}, {7, 3}, {4096, 2}, {64 << 10, 4}, {0, 0}} {
		for name, src := range map[string]io.Reader{
			"bytes":   bytes.NewReader(data),
			"half":    iotest.HalfReader(bytes.NewReader(data)),
			"onebyte": iotest.OneByteReader(bytes.NewReader(data)),
		} {
			r := New(src, tc.bufSize, tc.nbufs)
			// iotest.TestReader checks Read's contract, including reads of 0 bytes.
			if err := iotest.TestReader(r, data); err != nil {
				t.Errorf("%s %v: %v", name, tc, err)
			}
			mustClose(t, r)
		}
	}
}

func TestCopyLarge(t *testing.T) {
	data := randomBytes(4<<20 + 123)
	r := New(iotest.HalfReader(bytes.NewReader(data)), 64<<10, 3)
	defer mustClose(t, r)
	got, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(got, data) {
		t.Errorf("got %d bytes, %v; want %d", len(got), err, len(data))
	}
}

// TestError checks that the source's error comes after all data before it,
// unchanged (io.ErrUnexpectedEOF included), and stays.
func TestError(t *testing.T) {
	data := randomBytes(100_000)
	for _, want := range []error{errors.New("boom"), io.ErrUnexpectedEOF} {
		src := io.MultiReader(bytes.NewReader(data), iotest.ErrReader(want))
		r := New(src, 4096, 3)
		got, err := io.ReadAll(r)
		if err != want || !bytes.Equal(got, data) {
			t.Errorf("got %d bytes, %v; want %d, %v", len(got), err, len(data), want)
		}
		if n, err := r.Read(make([]byte, 10)); n != 0 || err != want {
			t.Errorf("after error: %d, %v", n, err)
		}
		mustClose(t, r)
	}
}

func TestNoProgress(t *testing.T) {
	r := New(zeroReader{}, 10, 2)
	defer mustClose(t, r)
	if _, err := io.ReadAll(r); err != io.ErrNoProgress {
		t.Errorf("err = %v", err)
	}
}

type zeroReader struct{}

func (zeroReader) Read([]byte) (int, error) { return 0, nil }

// TestEarlyClose stops consuming while the goroutine waits to hand over a
// buffer: Close must end it (goleak checks).
func TestEarlyClose(t *testing.T) {
	r := New(bytes.NewReader(randomBytes(1<<20)), 1024, 4)
	if _, err := io.ReadFull(r, make([]byte, 1500)); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal("second Close:", err)
	}
	if _, err := r.Read(make([]byte, 1)); err != ErrClosed {
		t.Errorf("Read after Close: %v", err)
	}
	// Close before any Read.
	mustClose(t, New(bytes.NewReader(randomBytes(1<<20)), 1024, 4))
}

// TestCloseWaitsForSource checks that Close returns only after the
// goroutine's Read of the source returned, so the caller may close it.
func TestCloseWaitsForSource(t *testing.T) {
	pr, pw := io.Pipe()
	src := &signalReader{r: pr, reading: make(chan struct{})}
	r := New(src, 1024, 2)
	<-src.reading // the goroutine is inside the source's Read, blocked on the pipe
	closed := make(chan struct{})
	go func() {
		mustClose(t, r)
		close(closed)
	}()
	time.Sleep(20 * time.Millisecond) // let Close reach its wait
	select {
	case <-closed:
		t.Fatal("Close returned while the source Read was blocked")
	default:
	}
	_ = pw.Close() // unblocks the source Read (a PipeWriter's Close returns nil)
	<-closed
}

// signalReader closes reading when its first Read starts.
type signalReader struct {
	r       io.Reader
	reading chan struct{}
	once    sync.Once
}

func (s *signalReader) Read(p []byte) (int, error) {
	s.once.Do(func() { close(s.reading) })
	return s.r.Read(p)
}

func TestNoAllocs(t *testing.T) {
	r := New(bytes.NewReader(randomBytes(8<<20)), 64<<10, 4)
	defer mustClose(t, r)
	p := make([]byte, 32<<10)
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := r.Read(p); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocs per Read", allocs)
	}
}

func BenchmarkRead(b *testing.B) {
	data := randomBytes(8 << 20)
	p := make([]byte, 256<<10)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		r := New(bytes.NewReader(data), 256<<10, 4)
		if _, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{r}, p); err != nil {
			b.Fatal(err)
		}
		mustClose(b, r)
	}
}

// mustClose closes r and fails the test if that fails (t.Error: callable from any goroutine).
func mustClose(t testing.TB, r *Reader) {
	t.Helper()
	if err := r.Close(); err != nil {
		t.Error("Close:", err)
	}
}
