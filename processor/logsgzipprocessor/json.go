package logsgzipprocessor // import "github.com/mergelog/otelcol-mergelog/processor/logsgzipprocessor"

import (
	"encoding/base64"
	"math"
	"strconv"
	"unicode/utf8"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// appendJSON appends v as JSON to b. It walks pdata directly instead of
// going through AsRaw and encoding/json, which would build a map per body
// and sort its keys; here keys keep their order in the record and nothing
// is allocated beyond growing b. Output matches encoding/json for every
// value encoding/json can represent, without HTML escaping (as pdata's
// AsString does); non-finite doubles, which JSON cannot hold, become the
// strings "NaN", "Infinity" and "-Infinity" as in OTLP/JSON.
func appendJSON(b []byte, v pcommon.Value, direct bool) []byte {
	switch v.Type() {
	case pcommon.ValueTypeStr:
		return appendJSONString(b, v.Str())
	case pcommon.ValueTypeInt:
		return strconv.AppendInt(b, v.Int(), 10)
	case pcommon.ValueTypeDouble:
		return appendJSONFloat(b, v.Double())
	case pcommon.ValueTypeBool:
		return strconv.AppendBool(b, v.Bool())
	case pcommon.ValueTypeBytes:
		b = append(b, '"')
		b = base64.StdEncoding.AppendEncode(b, readBytes(v.Bytes(), direct))
		return append(b, '"')
	case pcommon.ValueTypeMap:
		b = append(b, '{')
		first := true
		for k, e := range v.Map().All() {
			if !first {
				b = append(b, ',')
			}
			first = false
			b = appendJSONString(b, k)
			b = append(b, ':')
			b = appendJSON(b, e, direct)
		}
		return append(b, '}')
	case pcommon.ValueTypeSlice:
		b = append(b, '[')
		s := v.Slice()
		for i := range s.Len() {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSON(b, s.At(i), direct)
		}
		return append(b, ']')
	default:
		return append(b, "null"...)
	}
}

// appendJSONFloat formats like encoding/json (ES6 number formatting).
func appendJSONFloat(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(b, `"Infinity"`...)
	case math.IsInf(f, -1):
		return append(b, `"-Infinity"`...)
	}
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// encoding/json writes e-7, not e-07.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

const hexDigits = "0123456789abcdef"

// appendJSONString quotes s as encoding/json does with HTML escaping off:
// invalid UTF-8 becomes U+FFFD, and U+2028/U+2029 are escaped so the output
// is also valid JavaScript.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
