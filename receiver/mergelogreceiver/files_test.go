package mergelogreceiver

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/ulikunitz/xz"
)

// rotationCase starts a receiver on dir/app.log*, writes lines 0-9, rotates with the given
// function, writes lines 10-19 to a fresh app.log, and expects each line exactly once.
func rotationCase(t *testing.T, rotate func(t *testing.T, path string)) {
	dir := t.TempDir()
	path := filepath.Join(dir, "app.log")
	writeFile(t, path, numbered(0, 10))
	cfg := testConfig(dir)
	cfg.Include = []string{filepath.Join(dir, "app.log*")}
	s := &sink{}
	startReceiver(t, cfg, s, nil)
	s.waitBodies(t, 10)
	appendFile(t, path, numbered(10, 15)) // possibly not read before the rotation
	rotate(t, path)
	appendFile(t, path, numbered(15, 20))
	assertSameLines(t, wantLines(0, 20), s.waitBodies(t, 20))
	time.Sleep(100 * time.Millisecond)
	assertSameLines(t, wantLines(0, 20), s.bodies(), "nothing twice")
}

func TestRotationMoveCreate(t *testing.T) {
	rotationCase(t, func(t *testing.T, path string) {
		require.NoError(t, os.Rename(path, path+".1"))
	})
}

func TestRotationCopyTruncate(t *testing.T) {
	rotationCase(t, func(t *testing.T, path string) {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		writeFile(t, path+".1", string(data))
		require.NoError(t, os.Truncate(path, 0))
	})
}

// A file rotated to .gz is recognised by its decompressed content: not read again.
func TestRotationToGzip(t *testing.T) {
	rotationCase(t, func(t *testing.T, path string) {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		writeGzip(t, path+".1.gz", data)
		require.NoError(t, os.Remove(path))
	})
}

func writeGzip(t *testing.T, path string, data []byte) {
	t.Helper()
	writeFile(t, path, string(compress(t, "gzip", data)))
}

// compress compresses data into kind: gzip, xz, zstd, or bzip2 with the bzip2 command (the
// standard library has no writer).
func compress(t *testing.T, kind string, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	var w io.WriteCloser
	var err error
	switch kind {
	case "gzip":
		w = gzip.NewWriter(&buf)
	case "xz":
		w, err = xz.NewWriter(&buf)
	case "zstd":
		w, err = zstd.NewWriter(&buf, zstd.WithEncoderConcurrency(1))
	case "bzip2":
		cmd := exec.Command("bzip2", "-c")
		cmd.Stdin = bytes.NewReader(data)
		cmd.Stdout = &buf
		require.NoError(t, cmd.Run())
		return buf.Bytes()
	}
	require.NoError(t, err)
	_, err = w.Write(data)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return buf.Bytes()
}

// Compressed files are recognised by their content, whatever their names.
func TestCompressedFilesByContent(t *testing.T) {
	dir := t.TempDir()
	writeGzip(t, filepath.Join(dir, "a.log"), []byte(numbered(0, 3)))
	writeFile(t, filepath.Join(dir, "b.log"), string(compress(t, "xz", []byte(numbered(3, 6)))))
	writeFile(t, filepath.Join(dir, "c.log"), string(compress(t, "zstd", []byte(numbered(6, 9)))))
	writeFile(t, filepath.Join(dir, "d.log"), numbered(9, 12))
	s := &sink{}
	startReceiver(t, testConfig(dir), s, nil)
	assertSameLines(t, wantLines(0, 12), s.waitBodies(t, 12))
}

// delete_after_read deletes a file once it is read and its records were accepted.
func TestDeleteAfterRead(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.log")
	writeFile(t, path, numbered(0, 5))
	cfg := testConfig(dir)
	cfg.DeleteAfterRead = true
	s := &sink{}
	startReceiver(t, cfg, s, nil)
	assert.Equal(t, wantLines(0, 5), s.waitBodies(t, 5))
	require.Eventually(t, func() bool {
		_, err := os.Stat(path)
		return errors.Is(err, fs.ErrNotExist)
	}, 5*time.Second, 5*time.Millisecond)
}
