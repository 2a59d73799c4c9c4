package mergelogreceiver

import (
	"strconv"
	"unicode/utf8"

	gojson "github.com/goccy/go-json"
	"go.opentelemetry.io/collector/pdata/pcommon"
)

// jsonParser is json_parser's parse for the fast path: a JSON object merged into the record's
// attributes with the values stanza's parser gives (goccy/go-json decoding into map[string]any:
// numbers float64, objects maps, arrays slices, null an empty value) as ConvertEntries turns
// them into pdata. Lines of plain, well-formed JSON, the common case, are scanned twice
// (checked, then built straight into the attributes, so a line that fails changes nothing);
// anything the scanner does not handle exactly as goccy does — not an object, not JSON at all,
// duplicate keys, \u escapes of surrogates, invalid UTF-8, control characters, numbers out of
// range, deep nesting — is decoded by goccy itself, which decides whether it is valid.
type jsonParser struct {
	s     string
	i     int
	build bool
	keys  []string  // check: the keys of the objects open, innermost last, for duplicates
	nums  []float64 // check: the numbers in order, which build takes up again
	num   int       // build: the next of nums
	depth int
	buf   []byte // an unescaped string
}

// jsonMaxDepth bounds the nesting the scanner follows; deeper documents go to goccy.
const jsonMaxDepth = 64

// parseInto merges the object s into attrs, or returns the error goccy gives for s.
func (p *jsonParser) parseInto(s string, attrs pcommon.Map) error {
	if p.scan(s, false, attrs) {
		p.scan(s, true, attrs)
		return nil
	}
	var m map[string]any
	if err := gojson.Unmarshal([]byte(s), &m); err != nil {
		return err
	}
	for k, v := range m {
		// goccy gives only the types FromRaw converts as ConvertEntries does.
		_ = attrs.PutEmpty(k).FromRaw(v)
	}
	return nil
}

// scan checks s (build false) or, once checked, merges it into attrs (build true).
func (p *jsonParser) scan(s string, build bool, attrs pcommon.Map) bool {
	p.s, p.i, p.build, p.depth = s, 0, build, 0
	if !build {
		p.keys, p.nums = p.keys[:0], p.nums[:0]
	}
	p.num = 0
	p.space()
	if p.i == len(s) || s[p.i] != '{' {
		return false
	}
	if !p.object(attrs) {
		return false
	}
	p.space()
	return p.i == len(s)
}

func (p *jsonParser) space() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// object reads {…} at p.i into m (build), which may hold keys already: they are replaced.
func (p *jsonParser) object(m pcommon.Map) bool {
	p.depth++
	if p.depth > jsonMaxDepth {
		return false
	}
	p.i++ // {
	mark := len(p.keys)
	p.space()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		p.depth--
		return true
	}
	for {
		if p.i == len(p.s) || p.s[p.i] != '"' {
			return false
		}
		key, ok := p.str()
		if !ok {
			return false
		}
		if !p.build {
			for _, k := range p.keys[mark:] {
				if k == key {
					return false
				}
			}
			p.keys = append(p.keys, key)
		}
		p.space()
		if p.i == len(p.s) || p.s[p.i] != ':' {
			return false
		}
		p.i++
		p.space()
		var v pcommon.Value
		if p.build {
			v = m.PutEmpty(key)
		}
		if !p.value(v) {
			return false
		}
		p.space()
		if p.i == len(p.s) {
			return false
		}
		switch p.s[p.i] {
		case ',':
			p.i++
			p.space()
		case '}':
			p.i++
			p.keys = p.keys[:mark]
			p.depth--
			return true
		default:
			return false
		}
	}
}

func (p *jsonParser) array(v pcommon.Value) bool {
	p.depth++
	if p.depth > jsonMaxDepth {
		return false
	}
	p.i++ // [
	var sl pcommon.Slice
	if p.build {
		sl = v.SetEmptySlice()
	}
	p.space()
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		p.depth--
		return true
	}
	for {
		var el pcommon.Value
		if p.build {
			el = sl.AppendEmpty()
		}
		if !p.value(el) {
			return false
		}
		p.space()
		if p.i == len(p.s) {
			return false
		}
		switch p.s[p.i] {
		case ',':
			p.i++
			p.space()
		case ']':
			p.i++
			p.depth--
			return true
		default:
			return false
		}
	}
}

// value reads one value at p.i into v (build).
func (p *jsonParser) value(v pcommon.Value) bool {
	if p.i == len(p.s) {
		return false
	}
	switch c := p.s[p.i]; {
	case c == '{':
		var m pcommon.Map
		if p.build {
			m = v.SetEmptyMap()
		}
		return p.object(m)
	case c == '[':
		return p.array(v)
	case c == '"':
		s, ok := p.str()
		if ok && p.build {
			v.SetStr(s)
		}
		return ok
	case c == '-' || c >= '0' && c <= '9':
		return p.number(v)
	}
	for _, lit := range [...]string{"true", "false", "null"} {
		if len(p.s)-p.i >= len(lit) && p.s[p.i:p.i+len(lit)] == lit {
			p.i += len(lit)
			if p.build && lit != "null" {
				v.SetBool(lit == "true")
			}
			return true
		}
	}
	return false
}

// number reads a number of JSON's grammar, as float64 (goccy parses it with ParseFloat too).
func (p *jsonParser) number(v pcommon.Value) bool {
	start := p.i
	if p.s[p.i] == '-' {
		p.i++
	}
	switch {
	case p.i < len(p.s) && p.s[p.i] == '0':
		p.i++
	case p.i < len(p.s) && p.s[p.i] >= '1' && p.s[p.i] <= '9':
		p.digits()
	default:
		return false
	}
	if p.i < len(p.s) && p.s[p.i] == '.' {
		p.i++
		if !p.digits() {
			return false
		}
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if !p.digits() {
			return false
		}
	}
	if p.build {
		v.SetDouble(p.nums[p.num])
		p.num++
		return true
	}
	f, err := strconv.ParseFloat(p.s[start:p.i], 64)
	if err != nil {
		return false
	}
	p.nums = append(p.nums, f)
	return true
}

// digits reads one digit or more.
func (p *jsonParser) digits() bool {
	start := p.i
	for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		p.i++
	}
	return p.i > start
}

// str reads the string at p.i ("…"): a slice of the line without escapes, else unescaped.
func (p *jsonParser) str() (string, bool) {
	p.i++ // "
	start := p.i
	for p.i < len(p.s) {
		switch c := p.s[p.i]; {
		case c == '"':
			p.i++
			return p.s[start : p.i-1], true
		case c == '\\':
			return p.escaped(start)
		case c < 0x20:
			return "", false
		case c < utf8.RuneSelf:
			p.i++
		default:
			r, n := utf8.DecodeRuneInString(p.s[p.i:])
			if r == utf8.RuneError {
				return "", false
			}
			p.i += n
		}
	}
	return "", false
}

// escaped reads on a string that has an escape at p.i, start being its first byte.
func (p *jsonParser) escaped(start int) (string, bool) {
	p.buf = append(p.buf[:0], p.s[start:p.i]...)
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return string(p.buf), true
		case c == '\\':
			if p.i+1 == len(p.s) {
				return "", false
			}
			e := p.s[p.i+1]
			p.i += 2
			switch e {
			case '"', '\\', '/':
				p.buf = append(p.buf, e)
			case 'b':
				p.buf = append(p.buf, '\b')
			case 'f':
				p.buf = append(p.buf, '\f')
			case 'n':
				p.buf = append(p.buf, '\n')
			case 'r':
				p.buf = append(p.buf, '\r')
			case 't':
				p.buf = append(p.buf, '\t')
			case 'u':
				if len(p.s)-p.i < 4 {
					return "", false
				}
				r, err := strconv.ParseUint(p.s[p.i:p.i+4], 16, 32)
				if err != nil || r >= 0xd800 && r < 0xe000 {
					return "", false
				}
				p.buf = utf8.AppendRune(p.buf, rune(r))
				p.i += 4
			default:
				return "", false
			}
		case c < 0x20:
			return "", false
		case c < utf8.RuneSelf:
			p.buf = append(p.buf, c)
			p.i++
		default:
			r, n := utf8.DecodeRuneInString(p.s[p.i:])
			if r == utf8.RuneError {
				return "", false
			}
			p.buf = append(p.buf, p.s[p.i:p.i+n]...)
			p.i += n
		}
	}
	return "", false
}
