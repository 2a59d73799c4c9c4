package testkit_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.uber.org/goleak"

	"github.com/mergelog/otelcol-mergelog/internal/decompress"
	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var kinds = map[testkit.Format]decompress.Kind{
	testkit.Gzip: decompress.Gzip, testkit.Bzip2: decompress.Bzip2, testkit.Xz: decompress.Xz, testkit.Zstd: decompress.Zstd,
}

// decode reads comp with the decoder the receiver and the command use.
func decode(t *testing.T, comp []byte) ([]byte, decompress.Kind) {
	t.Helper()
	z, err := decompress.NewReader(bytes.NewReader(comp))
	require.NoError(t, err)
	out, err := io.ReadAll(z)
	require.NoError(t, errors.Join(err, z.Close()))
	return out, z.Kind()
}

func TestCompressRoundTrip(t *testing.T) {
	data := []byte(testkit.Text(testkit.Lines("line", 0, 5000)))
	require.Len(t, testkit.Formats, len(kinds))
	for _, f := range testkit.Formats {
		t.Run(string(f), func(t *testing.T) {
			comp := testkit.Compress(t, f, data)
			assert.Less(t, len(comp), len(data))
			out, kind := decode(t, comp)
			assert.Equal(t, kinds[f], kind)
			assert.Equal(t, data, out)

			// The streaming writer makes a stream that decodes the same.
			var buf bytes.Buffer
			w, err := testkit.NewWriter(f, &buf)
			require.NoError(t, err)
			for line := range strings.Lines(string(data)) {
				_, err := io.WriteString(w, line)
				require.NoError(t, err)
			}
			require.NoError(t, w.Close())
			out, kind = decode(t, buf.Bytes())
			assert.Equal(t, kinds[f], kind)
			assert.Equal(t, data, out)
		})
	}
}

func TestCompressXzDict(t *testing.T) {
	data := []byte("small dictionary\n")
	out, kind := decode(t, testkit.CompressXz(t, data, 4096))
	assert.Equal(t, decompress.Xz, kind)
	assert.Equal(t, data, out)
}

func TestNewWriterUnknownFormat(t *testing.T) {
	_, err := testkit.NewWriter("lz4", io.Discard)
	assert.ErrorContains(t, err, `"lz4"`)
	assert.False(t, testkit.CanCompress("lz4"))
}

func TestLines(t *testing.T) {
	assert.Equal(t, []string{"a 2", "a 3", "a 4"}, testkit.Lines("a", 2, 5))
	assert.Empty(t, testkit.Lines("a", 3, 3))
	assert.Equal(t, []string{"0", "1"}, testkit.LinesOf(0, 2, func(i int) string { return string(rune('0' + i)) }))
	assert.Equal(t, "a 0\na 1\n", testkit.Text(testkit.Lines("a", 0, 2)))
	assert.Empty(t, testkit.Text(nil))
}

func TestWriteAndAppendFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "dir", "a.log")
	assert.Equal(t, path, testkit.WriteFile(t, path, "one\n"))
	testkit.AppendFile(t, path, []byte("two\n"))
	testkit.AppendFile(t, path, "three\n")
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "one\ntwo\nthree\n", string(got))

	testkit.WriteFile(t, path, []byte("replaced\n"))
	got, err = os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "replaced\n", string(got))

	fresh := filepath.Join(filepath.Dir(path), "fresh.log")
	testkit.AppendFile(t, fresh, "created\n")
	got, err = os.ReadFile(fresh)
	require.NoError(t, err)
	assert.Equal(t, "created\n", string(got))
}

func logs(bodies ...string) plog.Logs {
	ld := plog.NewLogs()
	lrs := ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords()
	for _, b := range bodies {
		lrs.AppendEmpty().Body().SetStr(b)
	}
	return ld
}

func TestLogsSinkKeepsAcceptedCopies(t *testing.T) {
	s := &testkit.LogsSink{Answer: func(_ context.Context, call int, _ plog.Logs) error {
		if call == 2 {
			return errors.New("refused")
		}
		return nil
	}}
	ld := logs("a", "b")
	require.NoError(t, s.ConsumeLogs(context.Background(), ld))
	ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().At(0).Body().SetStr("changed by the caller")
	assert.Error(t, s.ConsumeLogs(context.Background(), logs("refused")))
	require.NoError(t, s.ConsumeLogs(context.Background(), logs("c")))

	assert.Equal(t, 3, s.Calls())
	assert.Equal(t, 3, s.RecordCount())
	assert.Len(t, s.Batches(), 2)
	assert.Equal(t, []string{"a", "b", "c"}, s.Bodies())
	assert.Len(t, s.Records(), 3)
	assert.False(t, s.Capabilities().MutatesData)
}

// An Answer that blocks does not keep the test from reading the sink.
func TestLogsSinkAnswerMayBlock(t *testing.T) {
	held, release := make(chan struct{}), make(chan struct{})
	s := &testkit.LogsSink{Answer: func(_ context.Context, call int, _ plog.Logs) error {
		if call == 1 {
			close(held)
			<-release
		}
		return nil
	}}
	var wg sync.WaitGroup
	wg.Go(func() { assert.NoError(t, s.ConsumeLogs(context.Background(), logs("held"))) })
	<-held
	assert.Equal(t, 1, s.Calls())
	assert.Zero(t, s.RecordCount())
	close(release)
	assert.Equal(t, []string{"held"}, s.WaitForBodies(t, 1))
	wg.Wait()
}

func TestLogsSinkWaitForRecords(t *testing.T) {
	s := &testkit.LogsSink{}
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range 3 {
			time.Sleep(time.Millisecond) // the records come one at a time, after the wait began
			assert.NoError(t, s.ConsumeLogs(context.Background(), logs(testkit.Lines("r", i, i+1)...)))
		}
	})
	recs := s.WaitForRecords(t, 3)
	assert.Len(t, recs, 3)
	wg.Wait()
	assert.Equal(t, testkit.Lines("r", 0, 3), s.Bodies())
	assert.True(t, s.AssertNoMoreThan(t, 3, 20*time.Millisecond))
	failed := &failures{TB: t}
	assert.False(t, s.AssertNoMoreThan(failed, 2, 20*time.Millisecond))
	assert.NotEmpty(t, failed.errors)
}

// failures is a testing.TB that keeps its errors instead of failing the test.
type failures struct {
	testing.TB
	errors []string
}

func (f *failures) Helper() {}

func (f *failures) Errorf(format string, args ...any) { f.errors = append(f.errors, format) }

func TestWaitUntil(t *testing.T) {
	n := 0
	testkit.WaitUntil(t, testkit.Timeout, "three looks", func() bool { n++; return n == 3 })
	assert.Equal(t, 3, n)
}
