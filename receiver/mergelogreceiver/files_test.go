package mergelogreceiver

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

// rotationCase starts a receiver on dir/app.log*, writes lines 0-9, rotates with the given
// function, writes lines 10-19 to a fresh app.log, and expects each line exactly once.
func rotationCase(t *testing.T, rotate func(t *testing.T, path string)) {
	dir := t.TempDir()
	path := filepath.Join(dir, "app.log")
	testkit.WriteFile(t, path, numbered(0, 10))
	cfg := testConfig(dir)
	cfg.Include = []string{filepath.Join(dir, "app.log*")}
	s := &testkit.LogsSink{}
	startReceiver(t, cfg, s, nil)
	s.WaitForBodies(t, 10)
	testkit.AppendFile(t, path, numbered(10, 15)) // possibly not read before the rotation
	rotate(t, path)
	testkit.AppendFile(t, path, numbered(15, 20))
	assertSameLines(t, wantLines(0, 20), s.WaitForBodies(t, 20))
	s.AssertNoMoreThan(t, 20, settle, "nothing twice")
	assertSameLines(t, wantLines(0, 20), s.Bodies(), "nothing twice")
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
		testkit.WriteFile(t, path+".1", string(data))
		require.NoError(t, os.Truncate(path, 0))
	})
}

// A file rotated to .gz is recognised by its decompressed content: not read again.
func TestRotationToGzip(t *testing.T) {
	rotationCase(t, func(t *testing.T, path string) {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		testkit.WriteFile(t, path+".1.gz", testkit.Compress(t, testkit.Gzip, data))
		require.NoError(t, os.Remove(path))
	})
}

// Compressed files are recognised by their content, whatever their names.
func TestCompressedFilesByContent(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "a.log"), testkit.Compress(t, testkit.Gzip, []byte(numbered(0, 3))))
	testkit.WriteFile(t, filepath.Join(dir, "b.log"), testkit.Compress(t, testkit.Xz, []byte(numbered(3, 6))))
	testkit.WriteFile(t, filepath.Join(dir, "c.log"), testkit.Compress(t, testkit.Zstd, []byte(numbered(6, 9))))
	testkit.WriteFile(t, filepath.Join(dir, "d.log"), numbered(9, 12))
	s := &testkit.LogsSink{}
	startReceiver(t, testConfig(dir), s, nil)
	assertSameLines(t, wantLines(0, 12), s.WaitForBodies(t, 12))
}

// delete_after_read deletes a file once it is read and its records were accepted.
func TestDeleteAfterRead(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.log")
	testkit.WriteFile(t, path, numbered(0, 5))
	cfg := testConfig(dir)
	cfg.DeleteAfterRead = true
	s := &testkit.LogsSink{}
	startReceiver(t, cfg, s, nil)
	assert.Equal(t, wantLines(0, 5), s.WaitForBodies(t, 5))
	require.Eventually(t, func() bool {
		_, err := os.Stat(path)
		return errors.Is(err, fs.ErrNotExist)
	}, testkit.Timeout, 5*time.Millisecond)
}
