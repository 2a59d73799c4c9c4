package logsgzipprocessor

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReasonsInREADME checks the values of the reason attribute against the README's list
// (internal/metadata's test checks the rest of the telemetry).
func TestReasonsInREADME(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	_, list, ok := strings.Cut(string(readme), "with attribute `reason`: ")
	require.True(t, ok, "the README lists no reasons")
	list, _, _ = strings.Cut(list, " |")
	var listed []string
	for r := range strings.SplitSeq(list, ", ") {
		listed = append(listed, strings.Trim(r, "`"))
	}
	assert.Equal(t, listed, reasonNames[:])
}
