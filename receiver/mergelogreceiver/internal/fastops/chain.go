// Package fastops runs a chain of the commonest stanza operators (json_parser, regex_parser,
// severity_parser, time_parser, move, copy, remove, add, with their common options) on a pdata
// log record itself, without a stanza entry or ConvertEntries: each operator reads and writes
// the record as stanza's would the entry, so that the record is the one ConvertEntries would
// make of stanza's output (diff_test.go checks it against stanza's operators).
//
// New builds a Chain only when every operator of the chain is one it covers, with the options
// it covers; otherwise the caller runs the chain in stanza. Like stanza's parsers and
// transformers a Chain is synchronous: a record has come out, or was dropped, when Run returns.
package fastops

import (
	"errors"
	"regexp"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.uber.org/zap"

	stanza "github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/entry"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/operator"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/operator/helper"

	"github.com/mergelog/otelcol-mergelog/receiver/mergelogreceiver/internal/stanzachain"
)

// Chain is the operators of a chain, run in turn on a record. One goroutine runs it.
type Chain struct {
	ops    []transformer
	logger *zap.Logger
	tmp    pcommon.Value // a value on its way from one field to another
	empty  pcommon.Value // stays empty: copied over a field to clear it
	// scratch is the stanza entry the time and severity parsers read one value from.
	scratch *stanza.Entry
	json    jsonParser
	failed  int64 // records an operator failed on since the last TakeFailures
}

// transformer is one operator: its step, and what stanza's TransformerOperator does around it.
type transformer struct {
	id, typ string
	onError string
	step    step
	match   *regexp.Regexp // if: body matches "…"; nil without if:
	drop    bool           // on_error drop or drop_quiet
	quiet   bool           // on_error send_quiet or drop_quiet
}

// step is an operator's own work on the record; an error is handled by on_error.
type step interface {
	run(c *Chain, lr plog.LogRecord) error
}

// errIfNotString is the error of `body matches` on a body that is neither a string nor empty
// (nil), which expr fails on.
var errIfNotString = errors.New("running if expr: body is not a string")

// New returns the chain of ops, or nil when an operator, or one of its options, is not covered.
// Failures are logged to logger as stanza logs them.
func New(ops []operator.Config, logger *zap.Logger) *Chain {
	if len(ops) == 0 {
		return nil
	}
	c := &Chain{logger: logger, tmp: pcommon.NewValueEmpty(), empty: pcommon.NewValueEmpty(), scratch: stanza.New()}
	for _, op := range ops {
		t, ok := transformerOf(op)
		if !ok {
			return nil
		}
		c.ops = append(c.ops, t)
	}
	return c
}

func transformerOf(op operator.Config) (transformer, bool) {
	s, tc, ok := stepOf(op.Builder)
	if !ok || len(tc.OutputIDs) > 0 {
		return transformer{}, false
	}
	t := transformer{
		id: op.ID(), typ: op.Type(), onError: tc.OnError, step: s,
		drop:  tc.OnError == helper.DropOnError || tc.OnError == helper.DropOnErrorQuiet,
		quiet: tc.OnError == helper.SendOnErrorQuiet || tc.OnError == helper.DropOnErrorQuiet,
	}
	if tc.IfExpr != "" {
		if t.match, ok = bodyMatches(tc.IfExpr); !ok {
			return transformer{}, false
		}
	}
	return t, true
}

// bodyMatches returns the regexp of an if: expression `body matches "<regexp>"`, the one form
// covered; expr compiles a constant pattern with the standard library's regexp.
func bodyMatches(expr string) (*regexp.Regexp, bool) {
	tree, err := parser.Parse(expr)
	if err != nil {
		return nil, false
	}
	n, ok := tree.Node.(*ast.BinaryNode)
	if !ok || n.Operator != "matches" {
		return nil, false
	}
	left, ok := n.Left.(*ast.IdentifierNode)
	right, ok2 := n.Right.(*ast.StringNode)
	if !ok || !ok2 || left.Value != "body" {
		return nil, false
	}
	re, err := regexp.Compile(right.Value)
	return re, err == nil
}

// Run applies the operators to lr in turn; false when one dropped it.
func (c *Chain) Run(lr plog.LogRecord) bool {
	for i := range c.ops {
		t := &c.ops[i]
		if t.match != nil {
			body := lr.Body()
			if body.Type() == pcommon.ValueTypeEmpty {
				continue // expr's `nil matches …` is false, not an error: the operator is skipped
			}
			if body.Type() != pcommon.ValueTypeStr {
				if !c.fail(t, errIfNotString) {
					return false
				}
				continue
			}
			if !t.match.MatchString(body.Str()) {
				continue
			}
		}
		if err := t.step.run(c, lr); err != nil && !c.fail(t, err) {
			return false
		}
	}
	return true
}

// TakeFailures returns how many records an operator failed on since the last call (on_error
// handled each).
func (c *Chain) TakeFailures() int64 {
	n := c.failed
	c.failed = 0
	return n
}

// fail counts and logs an operator's failure on a record as stanza does (the quiet modes at
// debug level) and reports whether on_error sends the record on.
func (c *Chain) fail(t *transformer, err error) bool {
	c.failed++
	fields := []zap.Field{zap.String("operator_id", t.id), zap.String("operator_type", t.typ), zap.Error(err), zap.String("action", t.onError)}
	if t.quiet {
		c.logger.Debug(stanzachain.FailedEntryMessage, fields...)
	} else {
		c.logger.Error(stanzachain.FailedEntryMessage, fields...)
	}
	return !t.drop
}
