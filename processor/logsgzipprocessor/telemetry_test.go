package logsgzipprocessor

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mergelog/otelcol-mergelog/internal/metadatatest"
	"github.com/mergelog/otelcol-mergelog/processor/logsgzipprocessor/internal/metadata"
)

// TestReasonsInMetadata checks the values of the reason attribute against metadata.yaml's enum
// (internal/metadata's test checks the rest of the telemetry).
func TestReasonsInMetadata(t *testing.T) {
	md := metadatatest.Read(t, "metadata.yaml")
	assert.Equal(t, md.Attributes[metadata.AttributeReason].Enum, reasonNames[:])
}
