package mergelogreceiver

import (
	// The operators file_log registers, so that operators: decodes the same types.
	_ "github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/adapter"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/operator"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/operator/parser/container"
)

// file_log's `operators` are stanza operators, decoded by stanza's own registry and run on the
// entries the receiver builds (chain.go): by internal/fastops on the record itself when it
// covers them all, or else by stanza's own code (internal/stanzachain). One placement is run by
// the receiver itself: a `container` operator first in the chain, with its defaults (as the
// helm chart's logsCollection preset has it), is what format: container does, without stanza's
// goroutine and batching; the operators after it run in the chain.

// nativeContainer reports whether ops starts with a container operator that format: container
// reproduces: its defaults, except id and max_log_size (format only names what each line's
// format is detected as anyway).
func nativeContainer(ops []operator.Config) bool {
	if len(ops) == 0 {
		return false
	}
	c, ok := ops[0].Builder.(*container.Config)
	if !ok {
		return false
	}
	d := container.NewConfig()
	p := c.ParserConfig
	return c.AddMetadataFromFilePath && p.OnError == d.OnError && p.IfExpr == "" && len(p.OutputIDs) == 0 &&
		p.ParseFrom.String() == d.ParseFrom.String() && p.ParseTo.String() == d.ParseTo.String() &&
		p.BodyField == nil && p.TimeParser == nil && p.SeverityConfig == nil && p.TraceParser == nil &&
		p.ScopeNameParser == nil
}

// chainOperators returns the operators the chain runs: all of them, or those after a container
// operator the receiver runs itself.
func (c *Config) chainOperators() []operator.Config {
	if nativeContainer(c.Operators) {
		return c.Operators[1:]
	}
	return c.Operators
}

// container reports whether lines are read as a container runtime's: format container, or the
// container operator run by the receiver.
func (c *Config) container() bool {
	return c.Format == FormatContainer || nativeContainer(c.Operators)
}

// logSize is the cap of a log entry: max_log_size, or the native container operator's when
// smaller (file_log caps a recombined line with it).
func (c *Config) logSize() int {
	size := c.MaxLogSize
	if nativeContainer(c.Operators) {
		if op := ByteSize(c.Operators[0].Builder.(*container.Config).MaxLogSize); op > 0 && op < size {
			size = op
		}
	}
	return int(size)
}
