package pageoutextension

import (
	"context"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/extension/extensioncapabilities"
	"go.opentelemetry.io/collector/extension/extensiontest"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
	"golang.org/x/sys/unix"

	"github.com/mergelog/otelcol-mergelog/extension/pageoutextension/internal/metadata"
	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

// start creates the extension from the factory with delay, its logs observed, and starts it.
func start(t *testing.T, delay time.Duration) (*pageout, *observer.ObservedLogs) {
	t.Helper()
	core, logs := observer.New(zap.InfoLevel)
	set := extensiontest.NewNopSettings(metadata.Type)
	set.Logger = zap.New(core)
	ext, err := NewFactory().Create(context.Background(), set, &Config{Delay: delay})
	require.NoError(t, err)
	require.NoError(t, ext.Start(context.Background(), componenttest.NewNopHost()))
	require.Implements(t, (*extensioncapabilities.PipelineWatcher)(nil), ext)
	return ext.(*pageout), logs
}

// Once the pipelines are ready, the executable's read-only pages leave the process: its
// resident file-backed memory falls.
func TestReadyGivesBackTheExecutablesPages(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("Linux only")
	}
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

// A page-out still waiting when the collector shuts down does not happen.
func TestShutdownCancelsAWaitingPageOut(t *testing.T) {
	p, logs := start(t, time.Hour)
	require.NoError(t, p.Ready())
	require.NoError(t, p.NotReady())
	require.NoError(t, p.Shutdown(context.Background()))
	assert.Zero(t, logs.Len())
	select {
	case <-p.ran:
		t.Fatal("the page-out ran")
	default:
	}
}

// Shut down before the pipelines were ever ready: nothing to cancel.
func TestShutdownBeforeReady(t *testing.T) {
	p, logs := start(t, 0)
	require.NoError(t, p.Shutdown(context.Background()))
	assert.Zero(t, logs.Len())
}
