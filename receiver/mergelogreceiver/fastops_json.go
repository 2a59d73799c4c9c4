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
// them into pdata. A line of plain, well-formed JSON, the common case, is cut into tokens, then
// built from them straight into the attributes (so a line that fails changes nothing);
// anything the tokenizer does not handle exactly as goccy does — not an object, not JSON at
// all, duplicate keys, \u escapes of surrogates, invalid UTF-8, control characters, numbers
// out of range, deep nesting — is decoded by goccy itself, which decides whether it is valid.
type jsonParser struct {
	s     string
	i     int
	toks  []jsonToken
	keys  []string // the keys of the objects open, innermost last, for duplicates
	depth int
	buf   []byte // an unescaped string
}

// jsonToken is one token of a line: kind is '{', '}', '[', ']', 's' (a string, key or value),
// 'n' (a number), 't', 'f' or 'z' (null).
type jsonToken struct {
	kind    byte
	members int     // '{', '[': how many, to size the map or slice once
	str     string  // 's': a slice of the line, or unescaped
	num     float64 // 'n'
}

// jsonMaxDepth bounds the nesting the tokenizer follows; deeper documents go to goccy.
const jsonMaxDepth = 64

// parseInto merges the object s into attrs, or returns the error goccy gives for s.
func (p *jsonParser) parseInto(s string, attrs pcommon.Map) error {
	if p.tokenize(s) {
		attrs.EnsureCapacity(attrs.Len() + p.toks[0].members)
		p.buildObject(attrs, 1)
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

// buildObject puts the members of the object whose tokens start at i (after its '{') into m,
// replacing keys m holds; it returns the index after the object's '}'.
func (p *jsonParser) buildObject(m pcommon.Map, i int) int {
	for p.toks[i].kind != '}' {
		i = p.buildValue(m.PutEmpty(p.toks[i].str), i+1)
	}
	return i + 1
}

// buildValue sets v to the value whose tokens start at i and returns the index after them.
func (p *jsonParser) buildValue(v pcommon.Value, i int) int {
	t := &p.toks[i]
	switch t.kind {
	case '{':
		m := v.SetEmptyMap()
		m.EnsureCapacity(t.members)
		return p.buildObject(m, i+1)
	case '[':
		sl := v.SetEmptySlice()
		sl.EnsureCapacity(t.members)
		i++
		for p.toks[i].kind != ']' {
			i = p.buildValue(sl.AppendEmpty(), i)
		}
		return i + 1
	case 's':
		v.SetStr(t.str)
	case 'n':
		v.SetDouble(t.num)
	case 't', 'f':
		v.SetBool(t.kind == 't')
	}
	return i + 1
}

// tokenize cuts s into p.toks; false when s is not one object the tokenizer handles.
func (p *jsonParser) tokenize(s string) bool {
	p.s, p.i, p.depth = s, 0, 0
	p.toks, p.keys = p.toks[:0], p.keys[:0]
	p.space()
	if p.i == len(s) || s[p.i] != '{' {
		return false
	}
	if !p.object() {
		return false
	}
	p.space()
	return p.i == len(s)
}

func (p *jsonParser) add(kind byte) {
	p.toks = append(p.toks, jsonToken{kind: kind})
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

// object tokenizes {…} at p.i.
func (p *jsonParser) object() bool {
	p.depth++
	if p.depth > jsonMaxDepth {
		return false
	}
	p.i++ // {
	open := len(p.toks)
	p.add('{')
	mark := len(p.keys)
	var seen uint64
	p.space()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		p.add('}')
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
		// seen has a bit per key's length and ends: only keys whose bit is set can be equal.
		bit := uint64(1) << (uint(len(key)) % 64)
		if key != "" {
			bit |= uint64(1) << (uint(key[0]^key[len(key)-1]) % 64)
		}
		if seen&bit == bit {
			for _, k := range p.keys[mark:] {
				if k == key {
					return false
				}
			}
		}
		seen |= bit
		p.keys = append(p.keys, key)
		p.toks = append(p.toks, jsonToken{kind: 's', str: key})
		p.space()
		if p.i == len(p.s) || p.s[p.i] != ':' {
			return false
		}
		p.i++
		p.space()
		if !p.value() {
			return false
		}
		if done, ok := p.afterMember(open, '}'); !ok || done {
			p.keys = p.keys[:mark]
			return ok
		}
	}
}

// afterMember ends a member of the object or array whose token is at open: a ',' before the
// next member, or its closing byte (done).
func (p *jsonParser) afterMember(open int, closing byte) (done, ok bool) {
	p.toks[open].members++
	p.space()
	if p.i == len(p.s) {
		return false, false
	}
	switch p.s[p.i] {
	case ',':
		p.i++
		p.space()
		return false, true
	case closing:
		p.i++
		p.add(closing)
		p.depth--
		return true, true
	}
	return false, false
}

// array tokenizes […] at p.i.
func (p *jsonParser) array() bool {
	p.depth++
	if p.depth > jsonMaxDepth {
		return false
	}
	p.i++ // [
	open := len(p.toks)
	p.add('[')
	p.space()
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		p.add(']')
		p.depth--
		return true
	}
	for {
		if !p.value() {
			return false
		}
		if done, ok := p.afterMember(open, ']'); !ok || done {
			return ok
		}
	}
}

// value tokenizes one value at p.i.
func (p *jsonParser) value() bool {
	if p.i == len(p.s) {
		return false
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		s, ok := p.str()
		p.toks = append(p.toks, jsonToken{kind: 's', str: s})
		return ok
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	}
	for _, lit := range jsonLiterals {
		if len(p.s)-p.i >= len(lit.text) && p.s[p.i:p.i+len(lit.text)] == lit.text {
			p.i += len(lit.text)
			p.add(lit.kind)
			return true
		}
	}
	return false
}

var jsonLiterals = [...]struct {
	text string
	kind byte
}{{"true", 't'}, {"false", 'f'}, {"null", 'z'}}

// number tokenizes a number of JSON's grammar, as float64 (goccy parses it with ParseFloat too).
func (p *jsonParser) number() bool {
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
	f, err := strconv.ParseFloat(p.s[start:p.i], 64)
	p.toks = append(p.toks, jsonToken{kind: 'n', num: f})
	return err == nil
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
		for p.i < len(p.s) && jsonPlain[p.s[p.i]] {
			p.i++
		}
		if p.i == len(p.s) {
			break
		}
		switch c := p.s[p.i]; {
		case c == '"':
			p.i++
			return p.s[start : p.i-1], true
		case c == '\\':
			return p.escaped(start)
		case c < 0x20:
			return "", false
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

// jsonPlain marks the bytes a string holds as they are: ASCII but control characters, the
// quote and the backslash.
var jsonPlain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

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
