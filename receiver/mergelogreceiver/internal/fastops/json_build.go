package fastops

import "go.opentelemetry.io/collector/pdata/pcommon"

// What jsonParser's one pass does besides reading the line: it keeps the attributes a line
// replaces until the line has been read, to put them back if it fails, and sizes containers
// from the line before.

// jsonReplaced is an attribute a line replaced, with the value it had.
type jsonReplaced struct {
	key string
	v   pcommon.Value
}

// jsonSized is how many containers of a line have their size kept for the next line.
const jsonSized = 64

// restore puts attrs back as they were with n attributes: those a failed line added removed,
// those it replaced given back their values.
func (p *jsonParser) restore(attrs pcommon.Map, n int) {
	if attrs.Len() > n {
		i := 0
		attrs.RemoveIf(func(string, pcommon.Value) bool {
			i++
			return i > n // the line's own, appended after the attributes there before
		})
	}
	for _, r := range p.replaced {
		v, _ := attrs.Get(r.key)
		r.v.MoveTo(v)
	}
}

// replace takes v, the value m already has for a key of the object, out of m to put it back
// if the line fails, when the key is one of the first orig, the attributes there before the
// line; false when it is not, the object having the key twice, which is left to goccy.
func (p *jsonParser) replace(m pcommon.Map, orig int, key string, v pcommon.Value) bool {
	for _, r := range p.replaced {
		if r.key == key {
			return false
		}
	}
	i := 0
	for k := range m.All() {
		if i == orig {
			break
		}
		if k == key {
			kept := pcommon.NewValueEmpty()
			v.MoveTo(kept)
			p.replaced = append(p.replaced, jsonReplaced{key: key, v: kept})
			return true
		}
		i++
	}
	return false
}

// open numbers a container that opens and returns its number and the size its place had in
// the line before (0 if none).
func (p *jsonParser) open() (int, int) {
	j := p.opened
	p.opened++
	if j < len(p.sizes) {
		return j, p.sizes[j]
	}
	if j < jsonSized {
		p.sizes = append(p.sizes, 0)
	}
	return j, 0
}

// closed keeps the members of container j for the next line.
func (p *jsonParser) closed(j, members int) {
	if j < len(p.sizes) {
		p.sizes[j] = members
	}
}
