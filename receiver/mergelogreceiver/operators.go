package mergelogreceiver

import (
	"fmt"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/featuregate"
	"go.uber.org/zap"

	// The operators file_log registers, so that operators: decodes the same types.
	_ "github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/adapter"
	stanza "github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/entry"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/operator"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/operator/parser/container"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/operator/transformer/recombine"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/operator/transformer/router"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/pipeline"
)

// file_log's `operators` are stanza operators, decoded by stanza's own registry and run by
// stanza's own code (chain.go) on the entries the receiver builds. One placement is run by the
// receiver itself: a `container` operator first in the chain, with its defaults (as the helm
// chart's logsCollection preset has it), is what format: container does, without stanza's
// goroutine and batching; the operators after it run in stanza.

// synchronousEmitterGate is stanza's process-wide gate under which its container operator
// emits synchronously instead of through a batching goroutine.
const synchronousEmitterGate = "stanza.synchronousLogEmitter"

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

// chainOperators returns the operators stanza runs: all of them, or those after a container
// operator the receiver runs itself.
func (c *Config) chainOperators() []operator.Config {
	if nativeContainer(c.Operators) {
		return c.Operators[1:]
	}
	return c.Operators
}

// validateOperators builds each operator and then the chain, as file_log does at start, so that
// a bad expression, regexp, on_error, duplicate id or missing output fails at start; an
// operator's own error is named by its place, type and id.
func validateOperators(ops []operator.Config) error {
	set := component.TelemetrySettings{Logger: zap.NewNop()}
	for i, op := range ops {
		if _, err := op.Build(set); err != nil {
			return fmt.Errorf("operators[%d] (type %q, id %q): %w", i, op.Type(), op.ID(), err)
		}
	}
	if len(ops) == 0 {
		return nil
	}
	if _, err := (pipeline.Config{Operators: ops}).Build(set); err != nil {
		return fmt.Errorf("operators: %w", err)
	}
	return nil
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

// holdBound is how long an entry may stay inside the chain's holding operators at most
// (recombine, stanza's container operator with its batching emitter): each flushes a group
// once its first entry is force_flush_period old, checking every fifth of that, and an entry
// may pass through several in turn; 0 when no operator holds entries past Process.
func holdBound(ops []operator.Config) time.Duration {
	var bound time.Duration
	for _, op := range ops {
		switch b := op.Builder.(type) {
		case *recombine.Config:
			bound += b.ForceFlushTimeout + b.ForceFlushTimeout/5
		case *container.Config:
			if !gateEnabled(synchronousEmitterGate) {
				flush := recombine.NewConfig().ForceFlushTimeout
				// the internal recombine, then the batching emitter's flush interval
				bound += flush + flush/5 + time.Second
			}
		}
	}
	return bound
}

// fansOut reports whether the chain may send one entry out more than once: an operator with
// several outputs (stanza's writers copy the entry for each but the last) or a router route
// naming several (it hands the same entry to each).
func fansOut(ops []operator.Config, built []operator.Operator) bool {
	for _, op := range ops {
		if r, ok := op.Builder.(*router.Config); ok {
			if len(r.Default) > 1 {
				return true
			}
			for _, route := range r.Routes {
				if len(route.OutputIDs) > 1 {
					return true
				}
			}
		}
	}
	for _, op := range built {
		if _, ok := op.(*router.Transformer); !ok && len(op.GetOutputIDs()) > 1 {
			return true
		}
	}
	return false
}

// fileSourced reports whether every group a holding operator in ops makes is of one file's
// entries: a recombine's source_identifier (stanza's container operator's is log.file.path)
// is log.file.path or log.file.name and the receiver sets that attribute. Otherwise a group
// may take in entries of several files.
func (c *Config) fileSourced(ops []operator.Config) bool {
	for _, op := range ops {
		var source string
		switch b := op.Builder.(type) {
		case *recombine.Config:
			source = b.SourceIdentifier.String()
		case *container.Config:
			source = stanza.NewAttributeField(attrFilePath).String()
		default:
			continue
		}
		switch source {
		case stanza.NewAttributeField(attrFilePath).String():
			if !c.IncludeFilePath {
				return false
			}
		case stanza.NewAttributeField(attrFileName).String():
			if !c.IncludeFileName {
				return false
			}
		default:
			return false
		}
	}
	return true
}

func gateEnabled(id string) bool {
	on := false
	featuregate.GlobalRegistry().VisitAll(func(g *featuregate.Gate) {
		if g.ID() == id {
			on = g.IsEnabled()
		}
	})
	return on
}

// terminalID names the receiver's own output operator at the end of the chain.
const terminalID = "mergelog_receiver_output"
