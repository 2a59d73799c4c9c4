package testkit

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os/exec"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/require"
	"github.com/ulikunitz/xz"
)

// Format is a compression format the receiver and the command decode.
type Format string

const (
	Gzip  Format = "gzip"
	Bzip2 Format = "bzip2" // written by the bzip2 command: Go has no bzip2 writer
	Xz    Format = "xz"
	Zstd  Format = "zstd"
)

// Formats lists every Format, for tests that cover them all.
var Formats = []Format{Gzip, Bzip2, Xz, Zstd}

// CanCompress reports whether f can be written on this machine (bzip2 needs its command).
func CanCompress(f Format) bool {
	if f == Bzip2 {
		_, err := exec.LookPath("bzip2")
		return err == nil
	}
	return f == Gzip || f == Xz || f == Zstd
}

// Compress returns data compressed as one f stream. It skips the test when f cannot be
// written here (see CanCompress), as a missing bzip2 command is the machine's lack, not a bug.
func Compress(t testing.TB, f Format, data []byte) []byte {
	t.Helper()
	return compress(t, f, data, 0)
}

// CompressXz is Compress for xz with a dictionary of dictCap bytes. xz's default, 8 MiB, costs
// milliseconds per stream to allocate, which starves a fuzzer.
func CompressXz(t testing.TB, data []byte, dictCap int) []byte {
	t.Helper()
	return compress(t, Xz, data, dictCap)
}

func compress(t testing.TB, f Format, data []byte, dictCap int) []byte {
	t.Helper()
	if !CanCompress(f) {
		t.Skipf("cannot write %s here", f)
	}
	var buf bytes.Buffer
	w, err := newWriter(f, &buf, dictCap)
	require.NoError(t, err)
	_, err = w.Write(data)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return buf.Bytes()
}

// NewWriter returns a writer that compresses into w as f; Close ends the stream (it does not
// close w). It reports errors instead of failing a test, for writers that run off the test's
// goroutine, such as a simulated logrotate.
func NewWriter(f Format, w io.Writer) (io.WriteCloser, error) { return newWriter(f, w, 0) }

func newWriter(f Format, w io.Writer, dictCap int) (io.WriteCloser, error) {
	switch f {
	case Gzip:
		return gzip.NewWriter(w), nil
	case Xz:
		return xz.WriterConfig{DictCap: dictCap}.NewWriter(w)
	case Zstd:
		// One goroutine: the encoder's default spawns one per CPU, which goleak would see.
		return zstd.NewWriter(w, zstd.WithEncoderConcurrency(1))
	case Bzip2:
		return newBzip2Writer(w)
	}
	return nil, fmt.Errorf("testkit: unknown format %q", f)
}

// bzip2Writer pipes what is written through the bzip2 command into the destination.
type bzip2Writer struct {
	io.WriteCloser // the command's standard input
	cmd            *exec.Cmd
	stderr         bytes.Buffer
}

func newBzip2Writer(w io.Writer) (*bzip2Writer, error) {
	b := &bzip2Writer{cmd: exec.Command("bzip2", "-c")}
	b.cmd.Stdout = w
	b.cmd.Stderr = &b.stderr
	in, err := b.cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	b.WriteCloser = in
	if err := b.cmd.Start(); err != nil {
		return nil, err
	}
	return b, nil
}

// Close ends the input and waits for the command to write the rest of the stream.
func (b *bzip2Writer) Close() error {
	err := b.WriteCloser.Close()
	if werr := b.cmd.Wait(); werr != nil {
		return fmt.Errorf("bzip2: %w: %s", werr, b.stderr.String())
	}
	return err
}
