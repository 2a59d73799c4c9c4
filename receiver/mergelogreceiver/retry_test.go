package mergelogreceiver

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"go.opentelemetry.io/collector/receiver/receivertest"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
	"github.com/mergelog/otelcol-mergelog/receiver/mergelogreceiver/internal/metadata"
)

// file_log's retry keys are accepted, and what they cannot do here is said at start: retrying
// cannot be turned off, and a batch is never given up.
func TestFileLogRetryKeysAreAcceptedAndSaidIgnored(t *testing.T) {
	for _, tc := range []struct {
		name    string
		enabled bool
		elapsed time.Duration
		want    []string
	}{
		{"helm preset (enabled, no limit)", true, 0, nil},
		{"disabled", false, 0, []string{"retry_on_failure.enabled: false is ignored"}},
		{"a time limit", true, 5 * time.Minute, []string{"retry_on_failure.max_elapsed_time is ignored"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := testConfig(dir)
			cfg.RetryOnFailure.Enabled = &tc.enabled
			cfg.RetryOnFailure.MaxElapsedTime = tc.elapsed
			core, logs := observer.New(zap.WarnLevel)
			set := receivertest.NewNopSettings(metadata.Type)
			set.Logger = zap.New(core)
			startWith(t, set, cfg, &testkit.CountingSink{}, nil)
			var got []string
			for _, e := range logs.All() {
				got = append(got, e.Message)
			}
			if len(tc.want) == 0 {
				assert.Empty(t, got)
				return
			}
			assert.Len(t, got, len(tc.want))
			for i, w := range tc.want {
				assert.Contains(t, got[i], w)
			}
		})
	}
}
