//go:build linux

package pageoutextension

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

// Once the pipelines are ready, the executable's read-only pages leave the process: its
// resident file-backed memory falls.
func TestReadyGivesBackTheExecutablesPages(t *testing.T) {
	if _, _, errno := unix.Syscall(unix.SYS_MADVISE, 0, 0, unix.MADV_PAGEOUT); errno != 0 {
		t.Skipf("this kernel has no MADV_PAGEOUT (Linux 5.4): %v", errno) // the advice is checked first
	}
	// go test has just written this executable: the kernel writes dirty pages back before it can
	// drop them, which a page-out does not wait for.
	exe, err := os.Executable()
	require.NoError(t, err)
	f, err := os.Open(exe)
	require.NoError(t, err)
	require.NoError(t, f.Sync())
	require.NoError(t, f.Close())
	p, logs := start(t, 0)
	require.NoError(t, p.Ready())
	testkit.WaitUntil(t, testkit.Timeout, "the page-out", func() bool {
		select {
		case <-p.ran:
			return true
		default:
			return false
		}
	})
	require.NoError(t, p.Shutdown(context.Background()))
	entries := logs.All()
	require.Len(t, entries, 1)
	fields := entries[0].ContextMap()
	require.NotContains(t, fields, "error")
	t.Logf("%s: %v", entries[0].Message, fields)
	before, after := fields["resident_file_bytes_before"].(int64), fields["resident_file_bytes_after"].(int64)
	assert.GreaterOrEqual(t, fields["mappings"], int64(2), "code and read-only data")
	assert.Less(t, after, before/2, "resident file-backed bytes before %d, after %d", before, after)
}
