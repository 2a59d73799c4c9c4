package stanzachain

import (
	"fmt"
	"slices"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/featuregate"
	"go.uber.org/zap"

	stanza "github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/entry"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/operator"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/operator/parser/container"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/operator/transformer/recombine"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/operator/transformer/router"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/pipeline"
)

// What a chain's operators are, read from their configs: how long they may hold an entry,
// whether they group entries by source, whether one entry may come out more than once.

// synchronousEmitterGate is stanza's process-wide gate under which its container operator
// emits synchronously instead of through a batching goroutine.
const synchronousEmitterGate = "stanza.synchronousLogEmitter"

// containerSource is the attribute stanza's container operator groups the pieces of a split
// line by.
const containerSource = "log.file.path"

// Validate builds each operator and then the chain, as file_log does at start, so that a bad
// expression, regexp, on_error, duplicate id or missing output fails at start; an operator's
// own error is named by its place, type and id.
func Validate(ops []operator.Config) error {
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

// sourced reports whether every group a holding operator in ops makes is of one source's
// entries: a recombine's source_identifier (stanza's container operator's is log.file.path)
// is one of attrs, the attributes that name the source. Otherwise a group may take in entries
// of several sources.
func sourced(ops []operator.Config, attrs []string) bool {
	for _, op := range ops {
		var source string
		switch b := op.Builder.(type) {
		case *recombine.Config:
			source = b.SourceIdentifier.String()
		case *container.Config:
			source = stanza.NewAttributeField(containerSource).String()
		default:
			continue
		}
		if !slices.ContainsFunc(attrs, func(a string) bool { return stanza.NewAttributeField(a).String() == source }) {
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
