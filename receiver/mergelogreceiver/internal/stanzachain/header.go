package stanzachain

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"

	"go.opentelemetry.io/collector/component"

	stanza "github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/entry"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/operator"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/pipeline"
)

// Header is file_log's header parser: the lines at a file's start that match its pattern are
// run through its metadata operators, which set the attributes the file's records get.
// Stanza's parsers emit before Process returns, so what a line gave is known when it returns.
type Header struct {
	pattern *regexp.Regexp
	pipe    *pipeline.DirectedPipeline
	first   operator.Operator
	out     *terminal
	taken   []*stanza.Entry
}

// NewHeader builds and starts the metadata operators ops of the header lines that match
// pattern, checking what file_log checks: the pattern compiles, and each operator processes
// and passes entries on (no filter). An error names the key it is about (pattern,
// metadata_operators).
func NewHeader(pattern string, ops []operator.Config, set component.TelemetrySettings) (*Header, error) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("pattern: %w", err)
	}
	if len(ops) == 0 {
		return nil, errors.New("metadata_operators: at least one operator is needed")
	}
	out, err := newTerminal(set)
	if err != nil {
		return nil, err
	}
	pipe, err := pipeline.Config{Operators: ops, DefaultOutput: out}.Build(set)
	if err != nil {
		return nil, fmt.Errorf("metadata_operators: %w", err)
	}
	h := &Header{pattern: re, pipe: pipe, out: out}
	for _, op := range pipe.Operators() {
		switch {
		case op == operator.Operator(out):
			continue
		case op.ID() == ops[0].ID():
			h.first = op
		}
		switch {
		case !op.CanProcess():
			return nil, fmt.Errorf("metadata_operators: operator '%s' cannot process entries", op.ID())
		case !op.CanOutput():
			return nil, fmt.Errorf("metadata_operators: operator '%s' does not propagate entries", op.ID())
		case op.Type() == "filter":
			return nil, errors.New("metadata_operators: an operator of type filter is not allowed")
		}
	}
	if err := pipe.Start(nil); err != nil {
		return nil, fmt.Errorf("metadata_operators: %w", err)
	}
	return h, nil
}

// Stop stops the operators; nothing to do without a header (nil).
func (h *Header) Stop() error {
	if h == nil {
		return nil
	}
	return h.pipe.Stop()
}

// Parse runs the operators on a header line and adds the attributes they set to attrs, later
// lines' over earlier ones', as file_log copies them; false when the line is not a header line.
func (h *Header) Parse(ctx context.Context, line []byte, attrs map[string]any) bool {
	text := string(line)
	if !h.pattern.MatchString(text) {
		return false
	}
	e := stanza.New()
	e.Body = text
	_ = h.first.Process(ctx, e) // a failure is logged by the operator, and on_error applied
	outs := h.out.take(h.taken[:0])
	for _, o := range outs {
		maps.Copy(attrs, o.Attributes)
	}
	clear(outs)
	h.taken = outs
	return true
}
