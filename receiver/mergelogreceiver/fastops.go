package mergelogreceiver

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
)

// fastChain runs a chain of the commonest operators on the record itself, without a stanza
// entry or ConvertEntries: each operator reads and writes the pdata record as stanza's
// would the entry, so that the record is the one ConvertEntries would make of stanza's output
// (fastops_diff_test.go checks it against stanza's operators). It is built only when every
// operator of the chain is one it covers with the options it covers (fastStepOf); otherwise
// stanza runs the chain. Like stanza's parsers and transformers it is synchronous: an entry
// has come out, or was dropped, when run returns.
type fastChain struct {
	ops    []fastOp
	logger *zap.Logger
	tmp    pcommon.Value // a value on its way from one field to another
	empty  pcommon.Value // stays empty: copied over a field to clear it
	// scratch is the stanza entry the time and severity parsers read one value from.
	scratch *stanza.Entry
	json    jsonParser
	failed  int64 // entries an operator failed on since the last chainRound
	// attrs is the most attributes a record came out with: records are made with room for
	// that many, so that parsers do not grow them.
	attrs int
	rec   plog.LogRecord // the record being built, when the batch takes it at once
}

// fastOp is one operator: its step, and what stanza's TransformerOperator does around it.
type fastOp struct {
	id, typ string
	onError string
	step    fastStep
	match   *regexp.Regexp // if: body matches "…"; nil without if:
	drop    bool           // on_error drop or drop_quiet
	quiet   bool           // on_error send_quiet or drop_quiet
}

// fastStep is an operator's own work on the record; an error is handled by on_error.
type fastStep interface {
	run(c *fastChain, lr plog.LogRecord) error
}

// errIfNotString is the error of `body matches` on a body that is neither a string nor empty
// (nil), which expr fails on.
var errIfNotString = errors.New("running if expr: body is not a string")

// newFastChain returns the fast chain for ops, or nil when an operator, or one of its
// options, is not covered; rawBody (encoding nop) makes bodies bytes, which it does not cover.
func newFastChain(ops []operator.Config, rawBody bool, logger *zap.Logger) *fastChain {
	if rawBody || len(ops) == 0 {
		return nil
	}
	c := &fastChain{
		logger: logger, tmp: pcommon.NewValueEmpty(), empty: pcommon.NewValueEmpty(), scratch: stanza.New(),
		rec: plog.NewLogRecord(),
	}
	for _, op := range ops {
		fop, ok := fastOpOf(op)
		if !ok {
			return nil
		}
		c.ops = append(c.ops, fop)
	}
	return c
}

func fastOpOf(op operator.Config) (fastOp, bool) {
	step, t, ok := fastStepOf(op.Builder)
	if !ok || len(t.OutputIDs) > 0 {
		return fastOp{}, false
	}
	fop := fastOp{
		id: op.ID(), typ: op.Type(), onError: t.OnError, step: step,
		drop:  t.OnError == helper.DropOnError || t.OnError == helper.DropOnErrorQuiet,
		quiet: t.OnError == helper.SendOnErrorQuiet || t.OnError == helper.DropOnErrorQuiet,
	}
	if t.IfExpr != "" {
		if fop.match, ok = bodyMatches(t.IfExpr); !ok {
			return fastOp{}, false
		}
	}
	return fop, true
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

// run applies the operators to lr in turn; false when one dropped it.
func (c *fastChain) run(lr plog.LogRecord) bool {
	for i := range c.ops {
		op := &c.ops[i]
		if op.match != nil {
			body := lr.Body()
			if body.Type() == pcommon.ValueTypeEmpty {
				continue // expr's `nil matches …` is false, not an error: the operator is skipped
			}
			if body.Type() != pcommon.ValueTypeStr {
				if !c.fail(op, errIfNotString) {
					return false
				}
				continue
			}
			if !op.match.MatchString(body.Str()) {
				continue
			}
		}
		if err := op.step.run(c, lr); err != nil && !c.fail(op, err) {
			return false
		}
	}
	return true
}

// fail counts and logs an operator's failure on an entry as stanza does (the quiet modes at
// debug level) and reports whether on_error sends the entry on.
func (c *fastChain) fail(op *fastOp, err error) bool {
	c.failed++
	fields := []zap.Field{zap.String("operator_id", op.id), zap.String("operator_type", op.typ), zap.Error(err), zap.String("action", op.onError)}
	if op.quiet {
		c.logger.Debug(failedEntryMessage, fields...)
	} else {
		c.logger.Error(failedEntryMessage, fields...)
	}
	return !op.drop
}

// toFastChain builds e's record as the batch would, runs the fast chain on it, and sends the
// record on, or settles e when an operator dropped it.
func (r *mergelogReceiver) toFastChain(e *entry) {
	c := r.chain.fast
	// Without a merge window the record goes into the batch at once, which moves it out and
	// leaves c.rec empty for the next one; the merge window holds records, each its own.
	lr := c.rec
	if r.merge != nil {
		lr = plog.NewLogRecord()
	}
	lr.Attributes().EnsureCapacity(c.attrs)
	fillRecord(lr, e, r.out.rawBody, r.out.numbers)
	if !c.run(lr) {
		if r.merge == nil {
			c.rec = plog.NewLogRecord()
		}
		r.out.settle(e.s, e.seq)
		return
	}
	c.attrs = max(c.attrs, lr.Attributes().Len())
	e.rec, e.native = lr, true
	e.at, e.timed = int64(lr.Timestamp()), lr.Timestamp() != 0
	e.body = ""
	if lr.Body().Type() == pcommon.ValueTypeStr {
		e.body = lr.Body().Str()
	}
	r.emitOutput(e)
}

// fastField is a field the fast path reads and writes: the body, or a top-level attribute.
type fastField struct {
	body bool
	key  string
}

func fastFieldOf(f stanza.Field) (fastField, bool) {
	switch v := f.FieldInterface.(type) {
	case stanza.BodyField:
		return fastField{body: true}, len(v.Keys) == 0
	case stanza.AttributeField:
		if len(v.Keys) == 1 {
			return fastField{key: v.Keys[0]}, true
		}
	}
	return fastField{}, false
}

// get is stanza's Field.Get: the body is always there (empty when nil).
func (f fastField) get(lr plog.LogRecord) (pcommon.Value, bool) {
	if f.body {
		return lr.Body(), true
	}
	return lr.Attributes().Get(f.key)
}

// set is stanza's Field.Set of v: a map is merged into the map the field holds (made anew
// when it holds something else), anything else replaces it. v must not be the field's own
// value or inside it (take it into c.tmp first).
func (f fastField) set(lr plog.LogRecord, v pcommon.Value) {
	if v.Type() != pcommon.ValueTypeMap {
		if f.body {
			v.CopyTo(lr.Body())
		} else {
			v.CopyTo(lr.Attributes().PutEmpty(f.key))
		}
		return
	}
	var dst pcommon.Value
	if f.body {
		dst = lr.Body()
	} else {
		var ok bool
		if dst, ok = lr.Attributes().Get(f.key); !ok {
			dst = lr.Attributes().PutEmpty(f.key)
		}
	}
	if dst.Type() != pcommon.ValueTypeMap {
		dst.SetEmptyMap()
	}
	into := dst.Map()
	v.Map().Range(func(k string, val pcommon.Value) bool {
		val.CopyTo(into.PutEmpty(k))
		return true
	})
}
