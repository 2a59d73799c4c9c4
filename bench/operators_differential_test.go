package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/plog"
	yaml "go.yaml.in/yaml/v3"

	"github.com/mergelog/otelcol-mergelog/bench/internal/rig"
	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

// fullRecord is all of a log record the operators make, observed time aside.
type fullRecord struct {
	Body, Attributes, Resource string
	Time                       string
	Severity                   plog.SeverityNumber
	SeverityText               string
	Trace, Span                string
	Flags                      plog.LogRecordFlags
}

func jsonOf(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return string(b)
}

// sameFullRecords checks that mergelog (got) gave file_log's records (want), each file's (or
// route's) in the same order.
func sameFullRecords(t *testing.T, want, got *testkit.LogsSink) {
	t.Helper()
	w, g := fullRecords(want), fullRecords(got)
	if len(w) == 0 {
		t.Fatal("no records from file_log")
	}
	t.Logf("file_log: %d records, mergelog: %d", want.RecordCount(), got.RecordCount())
	if len(g) != len(w) {
		t.Errorf("records of %d files (or routes), file_log: %d", len(g), len(w))
	}
	for key, wr := range w {
		if d := firstDiff(wr, g[key]); d != "" {
			t.Errorf("%s: mergelog differs from file_log at %s", key, d)
		}
	}
}

// fullRecords returns every record s accepted, in delivery order, keyed by what orders them:
// their file (log.file.name, else log.file.path) and, for router chains, the route attribute.
func fullRecords(s *testkit.LogsSink) map[string][]fullRecord {
	out := map[string][]fullRecord{}
	for _, ld := range s.Batches() {
		rls := ld.ResourceLogs()
		for i := range rls.Len() {
			resource := jsonOf(rls.At(i).Resource().Attributes().AsRaw())
			sls := rls.At(i).ScopeLogs()
			for j := range sls.Len() {
				lrs := sls.At(j).LogRecords()
				for k := range lrs.Len() {
					lr := lrs.At(k)
					attrs := lr.Attributes().AsRaw()
					key := fmt.Sprint(attrs["log.file.name"], attrs["log.file.path"], attrs["route"])
					out[key] = append(out[key], fullRecord{
						Body: jsonOf(lr.Body().AsRaw()), Attributes: jsonOf(attrs), Resource: resource,
						Time: lr.Timestamp().String(), Severity: lr.SeverityNumber(), SeverityText: lr.SeverityText(),
						Trace: lr.TraceID().String(), Span: lr.SpanID().String(), Flags: lr.Flags(),
					})
				}
			}
		}
	}
	return out
}

// operatorCase is one file_log config with operators, its files, and the records expected.
type operatorCase struct {
	name  string
	files map[string]string // name → content
	keys  string            // the receiver's keys, as YAML (include and start_at are added)
}

var jsonLines = strings.Join([]string{
	`{"time":"2024-05-01 10:00:00","level":"info","msg":"started","user":{"id":7,"name":"ann"},"n":1.5}`,
	`{"time":"2024-05-01 10:00:01","level":"WARN","msg":"slow","trace_id":"0123456789abcdef0123456789abcdef","span_id":"0123456789abcdef","trace_flags":"01"}`,
	`not json at all`,
	`{"time":"2024-05-01 10:00:02","level":"error","msg":"failed","tags":["a","b"],"ok":false}`,
	`{"time":"bad time","level":"debug","msg":"odd"}`,
}, "\n") + "\n"

var plainLines = strings.Join([]string{
	"2023-06-19 05:20:50 ERROR This is a test error message",
	"2023-06-20 12:50:00 DEBUG This is a test debug message",
	"2023-06-20 12:50:01 WARN user=ann action=login took=12ms",
	"garbage line",
	"2023-06-20 12:50:02 INFO user=bob action=logout",
}, "\n") + "\n"

var javaLines = strings.Join([]string{
	"2024-01-01 00:00:00 INFO start",
	"2024-01-01 00:00:01 ERROR failed",
	"java.lang.RuntimeException: boom",
	"\tat a.b.C.d(C.java:1)",
	"\tat a.b.C.e(C.java:2)",
	"2024-01-01 00:00:02 INFO next",
	"2024-01-01 00:00:03 WARN last",
	"\tat x.y.Z(Z.java:3)",
}, "\n") + "\n"

func operatorCases() []operatorCase {
	cri := func(sec int, stream, flag, log string) string {
		return fmt.Sprintf("2024-01-01T00:00:%02d.000000000Z %s %s %s\n", sec, stream, flag, log)
	}
	pod := cri(1, "stdout", "F", `{"level":"info","msg":"hello","k":"v"}`) + cri(2, "stderr", "P", `{"level":"warn",`) +
		cri(2, "stderr", "F", `"msg":"split"}`) + cri(3, "stdout", "F", "plain text")
	podFile := "pods/ns_pod-a_0123-4567/app/0.log"
	return []operatorCase{
		{"helm preset", map[string]string{podFile: pod}, `
include_file_path: true
include_file_name: false
retry_on_failure: {enabled: true}
operators:
  - {type: container, id: container-parser, max_log_size: 102400}`},
		{"container, json_parser on body, move x2, remove", map[string]string{podFile: pod}, `
include_file_path: true
operators:
  - {type: container}
  - {type: json_parser, parse_from: body, on_error: send_quiet, if: 'body matches "^\\{"'}
  - {type: move, from: attributes.msg, to: body, if: 'attributes.msg != nil'}
  - {type: move, from: attributes.level, to: attributes.severity, if: 'attributes.level != nil'}
  - {type: remove, field: attributes.logtag}`},
		{"README: simple json file", map[string]string{"app.json": jsonLines}, `
operators:
  - type: json_parser
    timestamp: {parse_from: attributes.time, layout: '%Y-%m-%d %H:%M:%S'}`},
		{"README: plaintext file", map[string]string{"simple.log": plainLines}, `
operators:
  - type: regex_parser
    regex: '^(?P<time>\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}) (?P<sev>[A-Z]*) (?P<msg>.*)$'
    timestamp: {parse_from: attributes.time, layout: '%Y-%m-%d %H:%M:%S'}
    severity: {parse_from: attributes.sev}`},
		{"json_parser with timestamp and severity", map[string]string{"app.json": jsonLines, "other.json": jsonLines}, `
operators:
  - type: json_parser
    on_error: send
    timestamp: {parse_from: attributes.time, layout_type: strptime, layout: '%Y-%m-%d %H:%M:%S'}
    severity: {parse_from: attributes.level, mapping: {warn: [WARN, warn], fatal: failed}}`},
		{"regex_parser named captures, severity_parser", map[string]string{"simple.log": plainLines}, `
operators:
  - {type: regex_parser, regex: '^(?P<time>\S+ \S+) (?P<sev>[A-Z]+) (?P<msg>.*)$', on_error: send_quiet}
  - {type: severity_parser, parse_from: attributes.sev, if: 'attributes.sev != nil', preset: default}`},
		{"move, add, remove, copy, retain, flatten", map[string]string{"app.json": jsonLines}, `
operators:
  - {type: json_parser, on_error: drop_quiet}
  - {type: flatten, field: attributes.user, if: 'attributes.user != nil'}
  - {type: move, from: attributes.msg, to: body}
  - {type: add, field: resource.service, value: shop}
  - {type: add, field: attributes.line, value: 'EXPR(body + "!")'}
  - {type: copy, from: attributes.level, to: attributes.level_copy}
  - {type: remove, field: attributes.time}
  - {type: retain, fields: [attributes.level, attributes.level_copy, attributes.line, attributes.id, attributes.name, attributes.n, attributes.tags, attributes.ok, attributes.trace_id, attributes.log.file.name]}`},
		{"key_value_parser", map[string]string{"simple.log": plainLines}, `
operators:
  - {type: regex_parser, regex: '^\S+ \S+ (?P<sev>[A-Z]+) (?P<rest>.*)$', on_error: drop}
  - {type: key_value_parser, parse_from: attributes.rest, if: 'attributes.rest contains "="', on_error: send_quiet}`},
		{"recombine", map[string]string{"app.log": javaLines, "b.log": javaLines}, `
include_file_path: true
operators:
  - type: recombine
    combine_field: body
    is_first_entry: body matches "^\\d{4}-"
    force_flush_period: 200ms`},
		{"router", map[string]string{"app.json": jsonLines}, `
operators:
  - type: router
    routes:
      - {expr: 'body matches "^\\{"', output: parse}
    default: plain
  - {type: json_parser, id: parse, output: tag-json}
  - {type: add, id: tag-json, field: attributes.route, value: json, output: end}
  - {type: add, id: plain, field: attributes.route, value: plain, output: end}
  - {type: noop, id: end}`},
		{"filter", map[string]string{"simple.log": plainLines}, `
operators:
  - {type: filter, expr: 'body contains "DEBUG" or body matches "^garbage"'}`},
		{"trace_parser", map[string]string{"app.json": jsonLines}, `
operators:
  - {type: json_parser, on_error: send_quiet}
  - {type: trace_parser, if: 'attributes.trace_id != nil'}`},
		{"if expressions and EXPR values", map[string]string{"simple.log": plainLines}, `
operators:
  - {type: add, field: attributes.kind, value: error, if: 'body contains "ERROR"'}
  - {type: add, field: attributes.len, value: 'EXPR(len(body))'}
  - {type: add, field: attributes.file, value: 'EXPR(attributes["log.file.name"])', if: 'attributes.kind == nil'}`},
	}
}

// TestOperatorsSameAsFileLog runs each config by file_log and by mergelog (the receiver type
// renamed, nothing else) over the same files and expects the same records, in the same order per
// file (per route for a router).
func TestOperatorsSameAsFileLog(t *testing.T) {
	for _, tc := range operatorCases() {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			for name, content := range tc.files {
				path := filepath.Join(dir, name)
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			keys := map[string]any{}
			if err := yaml.Unmarshal([]byte(tc.keys), &keys); err != nil {
				t.Fatal(err)
			}
			keys["include"] = []any{filepath.Join(dir, "**", "*.*")}
			keys["start_at"] = "beginning"
			keys["poll_interval"] = "50ms"
			var want, got testkit.LogsSink
			start(t, rig.FileLog, keys, &want, rig.Host{})
			start(t, rig.Mergelog, inOrder(keys), &got, rig.Host{})
			waitSame(&want, &got, time.Second, 30*time.Second)
			sameFullRecords(t, &want, &got)
		})
	}
}
