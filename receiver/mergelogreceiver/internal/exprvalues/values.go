// Package exprvalues compiles and renders the values of file_log's attributes and resource
// keys: strings in which each EXPR(...) is an expression, compiled and rendered by stanza's
// helper as file_log renders them when it makes an entry (env(...) reads the environment; body
// is the entry's text). A value that reads nothing of the entry is the same for every entry:
// it is rendered once, at start. Those that read the entry are rendered for each record
// (attributes only).
package exprvalues

import (
	"fmt"
	"sort"

	"github.com/expr-lang/expr/ast"
	"go.opentelemetry.io/collector/pdata/pcommon"

	stanza "github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/entry"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/operator/helper"
)

// Values are the compiled values of one key (attributes or resource).
type Values struct {
	Static   pcommon.Map  // the values rendered at start
	perEntry []entryValue // in key order
}

type entryValue struct {
	key string
	val *helper.ExprString
}

// entryFields are the names of the expression environment that file_log fills from the entry.
var entryFields = map[string]bool{"$": true, "body": true, "attributes": true, "resource": true, "timestamp": true}

// Attributes compiles the attributes' values.
func Attributes(kv map[string]string) (Values, error) {
	return compile(kv, pcommon.NewMap(), entryFields, true)
}

// Resource compiles the resource's values, which file_log renders after the attributes: their
// expressions see the attributes, which are the same for every entry unless some read it.
func Resource(kv map[string]string, attrs Values) (pcommon.Map, error) {
	fields := entryFields
	if len(attrs.perEntry) == 0 {
		fields = map[string]bool{"$": true, "body": true, "resource": true, "timestamp": true}
	}
	v, err := compile(kv, attrs.Static, fields, false)
	return v.Static, err
}

// compile compiles kv, rendering at once the values that name none of fields (with attrs as
// the entry's attributes); perEntry says whether the others may be rendered per entry.
func compile(kv map[string]string, attrs pcommon.Map, fields map[string]bool, perEntry bool) (Values, error) {
	v := Values{Static: pcommon.NewMap()}
	keys := make([]string, 0, len(kv))
	for k := range kv {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	v.Static.EnsureCapacity(len(keys))
	env := helper.GetExprEnv(&stanza.Entry{Attributes: attrs.AsRaw()})
	defer helper.PutExprEnv(env)
	for _, k := range keys {
		e, err := helper.ExprStringConfig(kv[k]).Build()
		if err != nil {
			return v, fmt.Errorf("%s: %w", k, err)
		}
		if readsEntry(e, fields) {
			if !perEntry {
				return v, fmt.Errorf("%s: an expression reading the entry (its body, or attributes that do) cannot set the resource here: a resource is shared by the records of a file", k)
			}
			v.perEntry = append(v.perEntry, entryValue{k, e})
			continue
		}
		s, err := e.Render(env)
		if err != nil {
			return v, fmt.Errorf("%s: %w", k, err)
		}
		v.Static.PutStr(k, s)
	}
	return v, nil
}

// readsEntry reports whether an expression of e names one of fields.
func readsEntry(e *helper.ExprString, fields map[string]bool) bool {
	f := fieldFinder{fields: fields}
	for _, p := range e.SubExprs {
		node := p.Node()
		ast.Walk(&node, &f)
	}
	return f.found
}

type fieldFinder struct {
	fields map[string]bool
	found  bool
}

func (f *fieldFinder) Visit(node *ast.Node) { //nolint:gocritic // the signature of ast.Visitor
	if id, ok := (*node).(*ast.IdentifierNode); ok && f.fields[id.Value] {
		f.found = true
	}
}

// PerEntry is how many values are rendered for each entry.
func (v *Values) PerEntry() int {
	return len(v.perEntry)
}

// Render renders the per-entry values for an entry whose body is body, as file_log renders
// them for an entry it makes (no attributes or resource yet). A value that fails to render
// is left out: file_log would drop the entry.
func (v *Values) Render(body any, put func(key, value string)) {
	env := helper.GetExprEnv(&stanza.Entry{Body: body})
	defer helper.PutExprEnv(env)
	for _, ev := range v.perEntry {
		if s, err := ev.val.Render(env); err == nil {
			put(ev.key, s)
		}
	}
}
