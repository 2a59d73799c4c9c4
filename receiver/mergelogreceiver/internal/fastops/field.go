package fastops

import (
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"

	stanza "github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/entry"
)

// field is a field the operators read and write: the body, or a top-level attribute.
type field struct {
	body bool
	key  string
}

func fieldOf(f stanza.Field) (field, bool) {
	switch v := f.FieldInterface.(type) {
	case stanza.BodyField:
		return field{body: true}, len(v.Keys) == 0
	case stanza.AttributeField:
		if len(v.Keys) == 1 {
			return field{key: v.Keys[0]}, true
		}
	}
	return field{}, false
}

// get is stanza's Field.Get: the body is always there (empty when nil).
func (f field) get(lr plog.LogRecord) (pcommon.Value, bool) {
	if f.body {
		return lr.Body(), true
	}
	return lr.Attributes().Get(f.key)
}

// set is stanza's Field.Set of v: a map is merged into the map the field holds (made anew
// when it holds something else), anything else replaces it. v must not be the field's own
// value or inside it (take it into Chain.tmp first).
func (f field) set(lr plog.LogRecord, v pcommon.Value) {
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
