package mergelogreceiver

import (
	"go.opentelemetry.io/collector/component"
	"go.uber.org/zap"

	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/operator"

	"github.com/mergelog/otelcol-mergelog/receiver/mergelogreceiver/internal/stanzachain"
)

// HeaderConfig is file_log's header: the lines at a file's start that match Pattern are its
// header, parsed by MetadataOperators (stanza operators, as file_log runs them) into attributes
// of every record of the file; the first line that does not match ends the header and is the
// first record.
type HeaderConfig struct {
	Pattern           string            `mapstructure:"pattern"`
	MetadataOperators []operator.Config `mapstructure:"metadata_operators"`
}

// Validate checks what file_log checks: the pattern compiles, and the operators build into a
// pipeline of which each operator processes and passes entries on (no filter).
func (h *HeaderConfig) Validate() error {
	p, err := newHeaderParser(h, component.TelemetrySettings{Logger: zap.NewNop()})
	if p != nil {
		return p.Stop()
	}
	return err
}

// newHeaderParser builds and starts the header's operators; nil without a header.
func newHeaderParser(h *HeaderConfig, set component.TelemetrySettings) (*stanzachain.Header, error) {
	if h == nil {
		return nil, nil
	}
	return stanzachain.NewHeader(h.Pattern, h.MetadataOperators, set)
}
