package fastops

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"go.uber.org/zap"

	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/operator"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

// Tricky entries for every chain: invalid JSON, numbers, nesting, unicode and escapes,
// duplicate keys, what stanza's goccy decodes and the scanner leaves to it. (A lone high
// surrogate escape within 6 bytes of the line's end makes goccy v0.10.6 read past its buffer,
// which -race's checkptr stops: those are left out.)
var trickyBodies = []string{
	``, ` `, `{}`, `null`, `[]`, `[1,2]`, `"str"`, `42`, `{`, `{"a":}`, `{"a":1,}`, `{"a":1}x`, `{"a":1} `, ` {"a":1}`,
	`{"a":1}{"b":2}`, `{'a':1}`, `{"a":01}`, `{"a":1.}`, `{"a":.5}`, `{"a":-}`, `{"a":1e}`, `{"a":+1}`,
	`{"a":1e400}`, `{"a":-1e400}`, `{"a":1e-400}`, `{"a":123456789012345678901234567890}`, `{"a":0.1,"b":-0,"c":1E+2,"d":2.5e-3}`,
	`{"a":9007199254740993}`, `{"a":true,"b":false,"c":null}`, `{"a":tru}`, `{"a":nul}`, `{"a":True}`,
	`{"a":{"b":{"c":[1,{"d":[]},"x"]}},"e":[]}`, `{"a":"x","a":"y"}`, `{"a":{"x":1},"a":{"y":2}}`, `{"a":{"k":1,"k":2}}`,
	`{"a":"\u00e9\u4e2d\n\t\"\\\/\b\f\r"}`, `{"a":"\ud83d\ude00"}`, `{"a":"\ud83d","b":1}`, `{"a":"\ud83d\u0041"}`, `{"a":"\udc00x"}`, `{"a":"\u12"}`, `{"a":"\x"}`,
	`{"a":"é中😀"}`, "{\"a\":\"\xff\"}", "{\"a\":\"\xc3\"}", "{\"a\":\"\x01\"}", "{\"a\":\"\x7f\"}", "{\"\xff\":1}", `{"a":"\u0000"}`,
	`{"a":"` + "\uFFFD" + `"}`, `{"é":1,"\u00e9":2}`, `{"":1}`, `{"a" : 1 , "b" :[ 1 , 2 ] }`, "{\"a\":1\n}", "{\"a\":1\x0b}",
	`{"log.file.name":"overwritten","msg":"m"}`, `{"msg":{"nested":true},"level":"info"}`, `{"msg":null,"level":null}`,
	// A line that fails after it wrote attributes, one overwritten: parsed straight into the
	// record, its writes are undone before stanza's decision.
	`{"log.file.name":"x","a":tru}`, `{"log.file.name":{"y":[1,2]},"b":1,"c":}`, `{"n1":{"n2":{"n3":1}},"n1":"dup"}`,
	`{"time":"2026-11-29T10:00:00.123456789Z","level":"warn","msg":"served"}`, `{"time":"2026-11-29T10:00:00+02:00","level":"ERROR"}`,
	`{"time":"0001-01-01T00:00:00Z","level":"info"}`, `{"time":"not a time","level":"info"}`, `{"time":12,"level":7}`,
	`{"level":"WARNING"}`, `{"level":9.5}`, `{"level":true}`, `{"level":[1]}`, `{"level":{"x":1}}`,
	`{"sev":"oops"}`, `{"sev":503}`, `{"sev":150}`, `{"sev":"w"}`, `{"sev":""}`, `{"sev":"die"}`, `{"sev":"DIE"}`, `{"sev":21}`, `{"sev":2.0}`,
	`{"t1":"2026-11-29 10:00:00.123 +0200","t2":"29/Nov/2026:10:00:00","t3":"Nov  9 10:00:00 CET 2026","t4":"1764410400.123"}`,
	`{"t1":"2026-11-29 10:00:00.123 -0000","t2":"29/Nov/2026:25:00:00","t3":"Nov  9 10:00:00 PST 2026","t4":1764410400.5}`,
	`{"t1":"bad","t2":"31/Feb/2026:10:00:00","t3":"Nov 19 10:00:00 UTC 2026","t4":"x"}`,
	`{"obj":{"k":"v","n":1},"obj2":"was a string","num":5}`, `{"obj":"plain","obj2":{"kept":true}}`, `{"obj":[1,"2"]}`, `{"n":12}`, `{"n":"abc"}`,
	`{"n":"Abc"}`, `{"n":{"m":1}}`, `{"msg":"m","level":"debug","time":"t"}`,
	`2026-11-29 10:00:00.000 INFO  [worker-3] http.server - GET /api/cart/1 served status=200`,
	`2026-11-29 10:00:00.000 WARN [worker-3] db.Pool - slow`, `2026-11-29 10:00:00.000 FATAL  [w] x - `, `no match here`,
	`aaabbb rest`, `ccc`, `bbbccc`, `aacc tail`, `abc`, `word`, `Word`, "line\nbreak",
}

// testChains are testdata/chains.yaml's chains, by name.
func testChains(tb testing.TB) map[string][]operator.Config {
	tb.Helper()
	chains := map[string][]operator.Config{}
	for name, ops := range testkit.OperatorChains(tb, filepath.Join("testdata", "chains.yaml")) {
		chains[name] = testkit.Operators(tb, ops)
	}
	return chains
}

// Every chain gives stanza's records, failures and drops on every tricky entry, with and
// without a timestamp found before the chain.
func TestSameAsStanza(t *testing.T) {
	for name, ops := range testChains(t) {
		t.Run(name, func(t *testing.T) {
			d := newDiff(t, ops)
			for _, body := range trickyBodies {
				d.check(t, fileInput(body))
				in := fileInput(body)
				in.at = time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
				d.check(t, in)
			}
		})
	}
}

// What the fast path does not cover falls back to stanza: whole-chain or nothing.
func TestFallBack(t *testing.T) {
	for name, ops := range map[string]string{
		"other if":            `[{type: json_parser, if: 'body contains "{"'}]`,
		"if on an attribute":  `[{type: json_parser, if: 'attributes.x matches "a"'}]`,
		"parse_to body":       `[{type: json_parser, parse_to: body}]`,
		"nested parse_from":   `[{type: json_parser, parse_from: attributes.a.b}]`,
		"parse_ints":          `[{type: json_parser, parse_ints: true}]`,
		"regex cache":         `[{type: regex_parser, regex: '(?P<a>.*)', cache: {size: 10}}]`,
		"body option":         `[{type: json_parser, body: attributes.msg}]`,
		"trace":               `[{type: json_parser, trace: {trace_id: {parse_from: attributes.t}}}]`,
		"output":              `[{type: json_parser, output: m}, {type: move, id: m, from: attributes.a, to: body}]`,
		"resource":            `[{type: move, from: attributes.a, to: resource.a}]`,
		"remove all":          `[{type: remove, field: attributes}]`,
		"add expr":            `[{type: add, field: attributes.a, value: 'EXPR(body)'}]`,
		"one not covered":     `[{type: json_parser}, {type: key_value_parser}]`,
		"native time":         `[{type: time_parser, parse_from: body, layout_type: native}]`,
		"timestamp in nested": `[{type: json_parser, timestamp: {parse_from: attributes.a.b, layout: "%s"}}]`,
	} {
		t.Run(name, func(t *testing.T) {
			assert.Nil(t, New(testkit.Operators(t, ops), zap.NewNop()))
		})
	}
}
