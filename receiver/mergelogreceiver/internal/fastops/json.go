package fastops

import (
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf8"

	gojson "github.com/goccy/go-json"
	"go.opentelemetry.io/collector/pdata/pcommon"
)

// jsonParser is json_parser's parse for the fast path: a JSON object merged into the record's
// attributes with the values stanza's parser gives (goccy/go-json decoding into map[string]any:
// numbers float64, objects maps, arrays slices, null an empty value) as ConvertEntries turns
// them into pdata. A line of plain, well-formed JSON, the common case, is read in one pass
// straight into the attributes. Anything the pass does not handle exactly as goccy does — not
// an object, not JSON at all, duplicate keys, \u escapes of surrogates, invalid UTF-8, control
// characters, numbers out of range, deep nesting — stops it: the attributes are put back as
// they were and goccy itself decodes the line, deciding whether it is valid.
type jsonParser struct {
	s     string
	i     int
	depth int
	buf   []byte // an unescaped string
	// replaced are the attributes the object replaced, with their values, to put back when
	// the line fails.
	replaced []jsonReplaced
	// sizes are the member counts of the previous line's containers in the order they opened:
	// pdata grows a map or a slice by append, and the lines of a log are much alike, so a
	// container is made with room for as many as the one at its place in the line before.
	sizes  []int
	opened int // the containers opened in this line
}

// jsonMaxDepth bounds the nesting the pass follows; deeper documents go to goccy.
const jsonMaxDepth = 64

// parseInto merges the object s into attrs, or returns the error goccy gives for s.
func (p *jsonParser) parseInto(s string, attrs pcommon.Map) error {
	p.s, p.i, p.depth, p.opened = s, 0, 0, 0
	n := attrs.Len()
	ok := p.document(attrs, n)
	if !ok {
		p.restore(attrs, n)
	}
	clear(p.replaced) // not to hold the values replaced (or given back) alive
	p.replaced = p.replaced[:0]
	if ok {
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

// document reads the line, one object, into attrs, which has n attributes before it.
func (p *jsonParser) document(attrs pcommon.Map, n int) bool {
	p.space()
	if p.i == len(p.s) || p.s[p.i] != '{' || !p.object(attrs, n) {
		return false
	}
	p.space()
	return p.i == len(p.s)
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

// object reads {…} at p.i into m, whose first orig members were there before it (only the
// record's attributes, the one map whose keys the object may replace, have any).
func (p *jsonParser) object(m pcommon.Map, orig int) bool {
	j, size, empty, ok := p.enter('}')
	if !ok || empty {
		return ok
	}
	m.EnsureCapacity(m.Len() + size)
	for members := 1; ; members++ {
		if p.i == len(p.s) || p.s[p.i] != '"' {
			return false
		}
		key, ok := p.str()
		if !ok {
			return false
		}
		p.space()
		if p.i == len(p.s) || p.s[p.i] != ':' {
			return false
		}
		p.i++
		p.space()
		v, found := m.GetOrPutEmpty(key)
		if found && !p.replace(m, orig, key, v) || !p.value(v) {
			return false
		}
		if done, ok := p.afterMember('}'); !ok || done {
			p.closed(j, members)
			return ok
		}
	}
}

// array reads […] at p.i into sl.
func (p *jsonParser) array(sl pcommon.Slice) bool {
	j, size, empty, ok := p.enter(']')
	if !ok || empty {
		return ok
	}
	sl.EnsureCapacity(size)
	for members := 1; ; members++ {
		if !p.value(sl.AppendEmpty()) {
			return false
		}
		if done, ok := p.afterMember(']'); !ok || done {
			p.closed(j, members)
			return ok
		}
	}
}

// enter starts the container at p.i (its opening byte) within the nesting bound: its slot j
// and the size carried from the line before (see open); empty when it closes at once (enter
// consumes it then).
func (p *jsonParser) enter(closing byte) (j, size int, empty, ok bool) {
	p.depth++
	if p.depth > jsonMaxDepth {
		return 0, 0, false, false
	}
	p.i++
	j, size = p.open()
	p.space()
	if p.i < len(p.s) && p.s[p.i] == closing {
		p.i++
		p.depth--
		p.closed(j, 0)
		return j, size, true, true
	}
	return j, size, false, true
}

// afterMember ends a member of a container: a ',' before the next member, or the container's
// closing byte (done).
func (p *jsonParser) afterMember(closing byte) (done, ok bool) {
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
		p.depth--
		return true, true
	}
	return false, false
}

// value reads one value at p.i into v, which is empty.
func (p *jsonParser) value(v pcommon.Value) bool {
	if p.i == len(p.s) {
		return false
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object(v.SetEmptyMap(), 0)
	case c == '[':
		return p.array(v.SetEmptySlice())
	case c == '"':
		s, ok := p.str()
		if ok {
			v.SetStr(s)
		}
		return ok
	case c == '-' || c >= '0' && c <= '9':
		f, ok := p.number()
		if ok {
			v.SetDouble(f)
		}
		return ok
	}
	switch rest := p.s[p.i:]; {
	case strings.HasPrefix(rest, "true"):
		v.SetBool(true)
		p.i += len("true")
	case strings.HasPrefix(rest, "false"):
		v.SetBool(false)
		p.i += len("false")
	case strings.HasPrefix(rest, "null"):
		p.i += len("null") // v stays empty, as FromRaw leaves it for nil
	default:
		return false
	}
	return true
}

// number reads a number of JSON's grammar, as float64 as goccy gives it (by ParseFloat); an
// integer of up to 15 digits is exact in a float64, so ParseFloat would give it as it is.
func (p *jsonParser) number() (float64, bool) {
	s, i := p.s, p.i
	neg := s[i] == '-'
	if neg {
		i++
	}
	first := i
	var n uint64
	for i < len(s) && s[i]-'0' <= 9 {
		n = n*10 + uint64(s[i]-'0')
		i++
	}
	digits := i - first
	if digits == 0 || digits > 1 && s[first] == '0' {
		return 0, false
	}
	integer := true
	if i < len(s) && s[i] == '.' {
		integer = false
		if i = jsonDigits(s, i+1); i < 0 {
			return 0, false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		integer = false
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i = jsonDigits(s, i); i < 0 {
			return 0, false
		}
	}
	f := float64(n)
	if neg {
		f = -f // -0 too, as ParseFloat gives it
	}
	if !integer || digits > 15 {
		var err error
		if f, err = strconv.ParseFloat(s[p.i:i], 64); err != nil {
			return 0, false
		}
	}
	p.i = i
	return f, true
}

// jsonDigits returns the index after the digits of s from i, -1 when there is none.
func jsonDigits(s string, i int) int {
	start := i
	for i < len(s) && s[i]-'0' <= 9 {
		i++
	}
	if i == start {
		return -1
	}
	return i
}

// str reads the string at p.i ("…"): a slice of the line without escapes, else unescaped.
func (p *jsonParser) str() (string, bool) {
	s, i := p.s, p.i+1
	start := i
	for {
		// Eight bytes at a time while they are plain ASCII: most strings have no other byte.
		for i+8 <= len(s) {
			if m := jsonSpecial(word(s[i:])); m != 0 {
				i += bits.TrailingZeros64(m) / 8
				break
			}
			i += 8
		}
		for i < len(s) && jsonPlain[s[i]] {
			i++
		}
		if i == len(s) {
			return "", false
		}
		switch c := s[i]; {
		case c == '"':
			p.i = i + 1
			return s[start:i], true
		case c == '\\':
			p.i = i
			return p.escaped(start)
		case c < 0x20:
			return "", false
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError {
				return "", false
			}
			i += n
		}
	}
}

// jsonSpecial has the high bit set of each byte of w (8 bytes of a line) that is not plain
// (jsonPlain), and maybe of bytes after it: the lowest set bit is the first byte that is not.
func jsonSpecial(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q, bs := w^(ones*'"'), w^(ones*'\\')
	// (x - ones) &^ x has the high bit of x's zero bytes; w - 0x20s, of its bytes below 0x20.
	return ((q-ones)&^q | (bs-ones)&^bs | (w-ones*0x20)&^w | w) & highs
}

// word is the 8 bytes of b little-endian, in one load.
func word(b string) uint64 {
	_ = b[7]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
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
