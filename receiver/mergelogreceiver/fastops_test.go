package mergelogreceiver

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/confmap"
	"go.uber.org/zap"
	yaml "go.yaml.in/yaml/v3"
)

// Chains of issue 13's benchmark and of the operators' options the fast path covers.
const (
	fastJSONTimeSev = `
- type: json_parser
  timestamp: {parse_from: attributes.time, layout_type: gotime, layout: "2006-01-02T15:04:05.999999999Z07:00"}
  severity: {parse_from: attributes.level}
`
	fastRegexSev = `
- type: regex_parser
  regex: '^(?P<time>\S+ \S+) (?P<sev>[A-Z]+) +\[(?P<thread>[^\]]+)\] (?P<logger>\S+) - (?P<msg>.*)$'
- type: severity_parser
  parse_from: attributes.sev
`
	fastJSONMoves = `
- type: json_parser
  parse_from: body
  if: 'body matches "^\\{"'
- {type: move, from: attributes.msg, to: body}
- {type: move, from: attributes.level, to: attributes.severity}
- {type: remove, field: attributes.time}
`
	// A JSON payload copied into an attribute and parsed from there, its fields moved and
	// copied around (a map into the body and into another map), static values added.
	fastFieldOps = `
- {type: copy, from: body, to: attributes.payload}
- {type: json_parser, parse_from: attributes.payload, on_error: send_quiet}
- {type: move, from: attributes.obj, to: body, on_error: send_quiet}
- {type: copy, from: body, to: attributes.obj2, on_error: send_quiet}
- {type: add, field: attributes.obj2, value: {added: 1, nested: {x: "y"}}}
- {type: add, field: attributes.env, value: prod}
- {type: add, field: attributes.n, value: 3}
- {type: remove, field: attributes.payload}
- {type: move, from: attributes.num, to: attributes.number, on_error: drop_quiet}
`
	// Severity values of every type, the default mapping, a custom one with a range.
	fastSeverityMapping = `
- {type: json_parser}
- type: severity_parser
  parse_from: attributes.sev
  mapping:
    error: [oops, 5xx]
    info: {min: 100, max: 199}
    warn: "W"
`
	fastSeverityOverwrite = `
- {type: json_parser}
- {type: severity_parser, parse_from: attributes.sev, preset: none, overwrite_text: true, mapping: {fatal: die}}
`
	// strptime with a zone, and a gotime layout with an abbreviation and locations.
	fastTimes = `
- {type: json_parser, on_error: send}
- {type: time_parser, parse_from: attributes.t1, layout: "%Y-%m-%d %H:%M:%S.%L %z", on_error: send}
- {type: time_parser, parse_from: attributes.t2, layout: "%d/%b/%Y:%H:%M:%S", location: America/New_York, on_error: send}
- {type: time_parser, parse_from: attributes.t3, layout_type: gotime, layout: "Jan _2 15:04:05 MST 2006", time_zone_locations: {CET: Europe/Berlin}, on_error: send}
- {type: time_parser, parse_from: attributes.t4, layout_type: epoch, layout: s.ms, on_error: send}
`
	// The regex: groups that do not take part, a name used twice.
	fastRegexGroups = `
- {type: regex_parser, regex: '^(?P<a>a+)?(?P<b>b+)?(?P<a>c+)?(?P<rest>.*)$', parse_from: body}
`
	fastDropOnError = `
- {type: json_parser, on_error: drop}
- {type: move, from: attributes.n, to: body}
- {type: regex_parser, regex: '^(?P<word>[a-z]+)$', on_error: drop_quiet, if: 'body matches "^[a-z]"'}
`
)

// Tricky entries for every chain: invalid JSON, numbers, nesting, unicode and escapes,
// duplicate keys, what stanza's goccy decodes and the scanner leaves to it. (A lone high
// surrogate escape within 6 bytes of the line's end makes goccy v0.10.6 read past its buffer,
// which -race's checkptr stops: those are left out.)
var fastTrickyBodies = []string{
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

var fastChains = map[string]string{
	"json time+severity": fastJSONTimeSev, "regex+severity": fastRegexSev, "json if, moves, remove": fastJSONMoves,
	"field ops": fastFieldOps, "severity mapping": fastSeverityMapping, "severity overwrite": fastSeverityOverwrite,
	"times": fastTimes, "regex groups": fastRegexGroups, "drop on error": fastDropOnError,
}

// Every chain gives stanza's records, failures and drops on every tricky entry, with and
// without a timestamp found before the chain.
func TestFastOperatorsSameAsStanza(t *testing.T) {
	for name, ops := range fastChains {
		t.Run(name, func(t *testing.T) {
			d := newFastDiff(t, ops)
			for _, body := range fastTrickyBodies {
				d.check(t, fileInput(body))
				in := fileInput(body)
				in.at = time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
				d.check(t, in)
			}
		})
	}
}

// What the fast path does not cover falls back to stanza: whole-chain or nothing.
func TestFastOperatorsFallBack(t *testing.T) {
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
			var raw []any
			require.NoError(t, yaml.Unmarshal([]byte(ops), &raw))
			cfg := createDefaultConfig().(*Config)
			require.NoError(t, confmap.NewFromStringMap(map[string]any{"operators": raw}).Unmarshal(cfg))
			assert.Nil(t, newFastChain(cfg.Operators, false, zap.NewNop()))
		})
	}
}

// Bodies as bytes (encoding nop) stay with stanza.
func TestFastOperatorsNotForRawBodies(t *testing.T) {
	cfg := mustOperators(t, createDefaultConfig().(*Config), fastJSONTimeSev)
	assert.NotNil(t, newFastChain(cfg.Operators, false, zap.NewNop()))
	assert.Nil(t, newFastChain(cfg.Operators, true, zap.NewNop()))
}

// The receiver runs issue 13's chains on the fast path, the last one after the native
// container operator; the operators of TestOperatorsParse, TestOperatorsDroppedAndMergedEntriesCommit
// ("on_error drop") and TestOperatorsTimeParserFeedsTheMerge too, which so check its records,
// failures, drops (they commit) and timestamps (they feed the merge) end to end.
func TestFastOperatorsRunTheReceiversChain(t *testing.T) {
	set := componenttestTelemetry(t).settings().TelemetrySettings
	for _, ops := range []string{fastJSONTimeSev, fastRegexSev, "- {type: container}\n" + fastJSONMoves,
		`[{type: json_parser, on_error: drop_quiet}]`} {
		cfg := mustOperators(t, testConfig(t.TempDir()), ops)
		c, err := newChain(cfg, set)
		require.NoError(t, err)
		assert.NotNil(t, c.fast, ops)
	}
	cfg := mustOperators(t, testConfig(t.TempDir()), `[{type: json_parser}, {type: key_value_parser}]`)
	c, err := newChain(cfg, set)
	require.NoError(t, err)
	assert.Nil(t, c.fast, "stanza runs a chain with an operator not covered")
}
