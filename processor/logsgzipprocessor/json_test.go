package logsgzipprocessor

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
)

// encodingJSON is what encoding/json writes for v, without HTML escaping.
func encodingJSON(t *testing.T, v any) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(v))
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

func TestAppendJSONMatchesEncodingJSON(t *testing.T) {
	values := []any{
		"", "plain", `quote " backslash \ slash /`, "<html> & co", "tab\tnewline\nreturn\rbell\a\x00\x1f\x7f",
		"\b\f", "caf\u00e9 \u65e5\u672c \U0001F600", "line\u2028para\u2029", "bad \xff\xfe utf-8 \xc3\x28 \xed\xa0\x80 end\xe2\x82",
		int64(0), int64(-42), int64(math.MaxInt64), int64(math.MinInt64),
		0.0, math.Copysign(0, -1), 1.5, -2.25, 1e20, 1e21, 1.23e-6, 1e-7, 123456789.125, math.MaxFloat64, math.SmallestNonzeroFloat64,
		true, false, nil, []byte{0, 1, 2, 250, 255},
	}
	for _, v := range values {
		pv := pcommon.NewValueEmpty()
		require.NoError(t, pv.FromRaw(v))
		for _, direct := range []bool{true, false} {
			assert.Equal(t, encodingJSON(t, pv.AsRaw()), string(appendJSON(nil, pv, direct)), "%#v", v)
		}
	}
}

func TestAppendJSONEmptyBytes(t *testing.T) {
	// pdata's AsRaw gives nil for empty bytes (encoding/json: null); an
	// empty byte string is still a string.
	assert.Equal(t, `""`, string(appendJSON(nil, pcommon.NewValueBytes(), true)))
}

func TestAppendJSONStructured(t *testing.T) {
	v := pcommon.NewValueMap()
	require.NoError(t, v.Map().FromRaw(map[string]any{
		"msg":             "GET /index.html",
		"status":          200,
		"ratio":           0.25,
		"ok":              true,
		"nil":             nil,
		"raw":             []byte("abc"),
		"tags":            []any{"a", 1, 2.5, false, nil, map[string]any{"deep": []any{}}},
		"empty":           map[string]any{},
		"we\"ir\nd <key>": "v",
	}))
	got := appendJSON(nil, v, true)

	var fromOurs, fromStd any
	require.NoError(t, json.Unmarshal(got, &fromOurs))
	require.NoError(t, json.Unmarshal([]byte(encodingJSON(t, v.AsRaw())), &fromStd))
	assert.Equal(t, fromStd, fromOurs)

	// Keys keep the record's order rather than being sorted.
	m := pcommon.NewValueMap()
	m.Map().PutStr("z", "1")
	m.Map().PutStr("a", "2")
	assert.JSONEq(t, `{"z":"1","a":"2"}`, string(appendJSON(nil, m, true)))
	assert.Equal(t, `{"z":"1","a":"2"}`, string(appendJSON(nil, m, true)))
}

func TestAppendJSONNonFinite(t *testing.T) {
	s := pcommon.NewValueSlice()
	s.Slice().AppendEmpty().SetDouble(math.NaN())
	s.Slice().AppendEmpty().SetDouble(math.Inf(1))
	s.Slice().AppendEmpty().SetDouble(math.Inf(-1))
	got := appendJSON(nil, s, true)
	assert.Equal(t, `["NaN","Infinity","-Infinity"]`, string(got))
	assert.True(t, json.Valid(got))
}
