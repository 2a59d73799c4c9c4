package metadata

import (
	"testing"

	"github.com/mergelog/otelcol-mergelog/internal/metrictable/metrictabletest"
)

func TestTelemetry(t *testing.T) {
	metrictabletest.Check(t, Telemetry, "../../README.md")
}
