package mergelogreceiver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/pdata/plog"
	yaml "go.yaml.in/yaml/v3"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

// withOperators decodes ops, file_log's operators as YAML, into cfg as the collector would.
func withOperators(t *testing.T, cfg *Config, ops string) (*Config, error) {
	t.Helper()
	var raw []any
	require.NoError(t, yaml.Unmarshal([]byte(ops), &raw))
	if err := confmap.NewFromStringMap(map[string]any{"operators": raw}).Unmarshal(cfg); err != nil {
		return nil, err
	}
	return cfg, nil
}

func mustOperators(t *testing.T, cfg *Config, ops string) *Config {
	t.Helper()
	cfg, err := withOperators(t, cfg, ops)
	require.NoError(t, err)
	return cfg
}

// logRecords returns the records s accepted, in delivery order.
func logRecords(s *testkit.LogsSink) []plog.LogRecord {
	var out []plog.LogRecord
	for _, ld := range s.Batches() {
		rls := ld.ResourceLogs()
		for i := range rls.Len() {
			sls := rls.At(i).ScopeLogs()
			for j := range sls.Len() {
				lrs := sls.At(j).LogRecords()
				for k := range lrs.Len() {
					out = append(out, lrs.At(k))
				}
			}
		}
	}
	return out
}

// The helm chart's logsCollection preset, with file_log renamed to mergelog, starts: its
// container operator runs as format: container, its max_log_size caps the joined line.
func TestHelmPresetReceiverConfigLoads(t *testing.T) {
	cfg, err := loadConfig(t, "helm_preset")
	require.NoError(t, err)
	assert.True(t, cfg.container())
	assert.Empty(t, cfg.chainOperators(), "the container operator runs natively, nothing in stanza")
	assert.Equal(t, 102400, cfg.logSize())
	require.NotNil(t, cfg.RetryOnFailure.Enabled)
	assert.True(t, *cfg.RetryOnFailure.Enabled)
}

// With operators: [{type: container}] the records are those of format: container (prefix
// stripped, split lines joined, log.iostream, the pod's identity on the resource) as file_log's
// container operator gives them: with the runtime's logtag of each line's first piece, and the
// restart count as a string.
func TestContainerOperatorIsFormatContainer(t *testing.T) {
	records := func(t *testing.T, set func(*Config)) map[string]podRecord {
		root := t.TempDir()
		dir := podDir(t, root, "app")
		testkit.WriteFile(t, filepath.Join(dir, "0.log"),
			criLine(1, "stdout", "F", "hello")+criLine(2, "stderr", "P", "split ")+criLine(2, "stderr", "F", "line")+criLine(3, "stdout", "F", "bye"))
		cfg := containerConfig(root)
		cfg.Format = FormatText
		set(cfg)
		s := &testkit.LogsSink{}
		startReceiver(t, cfg, s, nil)
		s.WaitForRecords(t, 3)
		return podRecords(s)
	}
	viaFormat := records(t, func(c *Config) { c.Format = FormatContainer })
	viaOperator := records(t, func(c *Config) {
		mustOperators(t, c, `[{type: container, id: container-parser, max_log_size: 102400}]`)
	})
	require.Len(t, viaOperator, 3)
	tags := map[string]string{"hello": "F", "split line": "P", "bye": "F"}
	for body, want := range viaFormat {
		got, ok := viaOperator[body]
		require.True(t, ok, "record %q", body)
		want.resource[attrK8sRestartCount] = fmt.Sprint(want.resource[attrK8sRestartCount])
		assert.Equal(t, want.resource, got.resource, body)
		attrs := want.lr.Attributes().AsRaw()
		attrs[attrLogTag] = tags[body]
		assert.Equal(t, attrs, got.lr.Attributes().AsRaw(), body)
		assert.Equal(t, want.lr.Timestamp(), got.lr.Timestamp(), body)
	}
	assert.Contains(t, viaOperator, "split line")
}

// A container operator that is not first, or not with its defaults, runs in stanza.
func TestContainerOperatorElsewhereRunsInStanza(t *testing.T) {
	cfg := mustOperators(t, testConfig(t.TempDir()), `[{type: container, if: 'body != ""'}]`)
	assert.False(t, cfg.container())
	assert.Len(t, cfg.chainOperators(), 1)
	cfg = mustOperators(t, testConfig(t.TempDir()), `[{type: container}, {type: remove, field: attributes.logtag}]`)
	assert.True(t, cfg.container())
	assert.Len(t, cfg.chainOperators(), 1)
}

// Bad operators fail at start, as in file_log, with an error that names the operator and
// what is wrong with it.
func TestOperatorsBadInputNameTheOperator(t *testing.T) {
	for name, tc := range map[string]struct{ ops, want string }{
		"unknown type":   {`[{type: json_parsr, id: parse}]`, "unsupported type 'json_parsr'"},
		"no type":        {`[{id: parse}]`, "missing required field 'type'"},
		"bad expression": {`[{type: filter, id: drop-debug, expr: 'body matches'}]`, `id "drop-debug"`},
		"bad if":         {`[{type: add, id: tag, field: attributes.x, value: y, if: 'body ==='}]`, `id "tag"`},
		"bad regex":      {`[{type: regex_parser, id: parse-access, regex: '^(?P<ip[0-9'}]`, `id "parse-access"`},
		"bad on_error":   {`[{type: json_parser, id: parse, on_error: ignore}]`, "on_error"},
		"duplicate ids":  {`[{type: json_parser, id: parse}, {type: json_parser, id: parse}]`, "operator with id 'parse' already exists"},
		"missing output": {`[{type: router, id: route, routes: [{expr: 'true', output: nowhere}]}]`, "nowhere"},
		"bad severity":   {`[{type: severity_parser, id: level, parse_from: attributes.level, mapping: {warn: [{min: 3}]}}]`, `id "level"`},
	} {
		t.Run(name, func(t *testing.T) {
			cfg, err := withOperators(t, testConfig(t.TempDir()), tc.ops)
			if err == nil {
				err = cfg.Validate()
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// A json_parser with timestamp and severity: attributes, Timestamp and severity as stanza sets
// them; a line that is not JSON is sent on as it is (on_error: send_quiet) and counted.
func TestOperatorsParse(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "app.log"),
		`{"time":"2024-05-01T10:00:00Z","level":"warn","msg":"disk"}`+"\n"+
			"not json\n"+
			`{"time":"2024-05-01T10:00:01Z","level":"error","msg":"full"}`+"\n")
	cfg := mustOperators(t, testConfig(dir), `
- type: json_parser
  on_error: send_quiet
  timestamp: {parse_from: attributes.time, layout_type: gotime, layout: '2006-01-02T15:04:05Z07:00'}
  severity: {parse_from: attributes.level}
`)
	tt := componenttestTelemetry(t)
	s := &testkit.LogsSink{}
	startWith(t, tt.settings(), cfg, s, nil)
	s.WaitForRecords(t, 3)
	lrs := logRecords(s)
	require.Len(t, lrs, 3)
	assert.Equal(t, "disk", lrs[0].Attributes().AsRaw()["msg"])
	assert.Equal(t, "app.log", lrs[0].Attributes().AsRaw()[attrFileName])
	assert.Equal(t, time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC), lrs[0].Timestamp().AsTime())
	assert.Equal(t, plog.SeverityNumberWarn, lrs[0].SeverityNumber())
	assert.Equal(t, "warn", lrs[0].SeverityText())
	assert.Equal(t, "not json", lrs[1].Body().Str())
	assert.Equal(t, plog.SeverityNumberError, lrs[2].SeverityNumber())
	assert.NotZero(t, lrs[1].ObservedTimestamp())
	tt.waitSum(t, "otelcol_receiver_mergelog_operator_errors", 1)
}

// Entries a filter drops, and entries recombine merges, settle: every file is committed to its
// end, which delete_after_read shows, the last entries held by recombine or dropped included.
func TestOperatorsDroppedAndMergedEntriesCommit(t *testing.T) {
	for name, ops := range map[string]string{
		"filter":        `[{type: filter, expr: 'body contains "debug"'}]`,
		"on_error drop": `[{type: json_parser, on_error: drop_quiet}]`,
		"recombine then filter": `
- type: recombine
  combine_field: body
  is_first_entry: body startsWith "S"
  force_flush_period: 100ms
  source_identifier: attributes["log.file.path"]
- type: filter
  expr: 'body contains "debug"'`,
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "app.log")
			testkit.WriteFile(t, path, "S one\n  cont\nS debug two\n  cont\n{\"a\":1}\nS three\nS debug four\n")
			cfg := testConfig(dir)
			cfg.DeleteAfterRead = true
			cfg.IncludeFilePath = true
			cfg = mustOperators(t, cfg, ops)
			s := &testkit.LogsSink{}
			m := testkit.NewMemStorage()
			cfg, host := withStorage(cfg, m)
			startReceiver(t, cfg, s, host)
			require.Eventually(t, func() bool {
				_, err := os.Stat(path)
				return os.IsNotExist(err)
			}, testkit.Timeout, 5*time.Millisecond, "the file is committed to its end and deleted")
			for _, lr := range logRecords(s) {
				assert.NotContains(t, lr.Body().AsString(), "debug")
			}
		})
	}
}

// recombine joins lines into the first entry of each group, flushing the last group after
// its force_flush_period, from its own goroutine.
func TestOperatorsRecombine(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "a.log"), "S one\n  at a\n  at b\nS two\nS three\n  at c\n")
	cfg := testConfig(dir)
	cfg = mustOperators(t, cfg, `[{type: recombine, combine_field: body, is_first_entry: 'body startsWith "S"', force_flush_period: 100ms}]`)
	s := &testkit.LogsSink{}
	startReceiver(t, cfg, s, nil)
	s.WaitForRecords(t, 3)
	var bodies []string
	for _, lr := range logRecords(s) {
		bodies = append(bodies, lr.Body().Str())
	}
	// Each line is trimmed before it goes in (preserve_leading_whitespaces is off), as in file_log.
	assert.Equal(t, []string{"S one\nat a\nat b", "S two", "S three\nat c"}, bodies)
}

// With merge, the timestamp may come from the operators (a time_parser): the merge orders what
// comes out of them.
func TestOperatorsTimeParserFeedsTheMerge(t *testing.T) {
	dir := t.TempDir()
	var a, b strings.Builder
	for i := range 20 {
		line := func(sec int, who string) string {
			return time.Date(2024, 1, 1, 0, 0, sec, 0, time.UTC).Format(time.RFC3339) + " " + who + "\n"
		}
		a.WriteString(line(2*i, "a"))
		b.WriteString(line(2*i+1, "b"))
	}
	testkit.WriteFile(t, filepath.Join(dir, "a.log"), a.String())
	testkit.WriteFile(t, filepath.Join(dir, "b.log"), b.String())
	cfg := testConfig(dir)
	cfg.Merge.Enabled = true
	cfg.Merge.Window = 5 * time.Second
	cfg = mustOperators(t, cfg, `
- type: regex_parser
  regex: '^(?P<time>\S+) (?P<who>\w+)$'
- type: time_parser
  parse_from: attributes.time
  layout_type: gotime
  layout: '2006-01-02T15:04:05Z07:00'
`)
	s := &testkit.LogsSink{}
	startReceiver(t, cfg, s, nil)
	s.WaitForRecords(t, 40)
	lrs := logRecords(s)
	for i, lr := range lrs {
		assert.Equal(t, time.Date(2024, 1, 1, 0, 0, i, 0, time.UTC), lr.Timestamp().AsTime().UTC(), "record %d", i)
	}
}

// A fan-out in a holding chain: a noop sends a copy of each "fan" entry to a recombine that
// holds it and the entry itself straight on. The entry coming out must not commit its line
// while the copy is still held: a crash then (the storage frozen, the consumer gone) reads the
// line again after the restart, and the copy comes out of it.
func TestOperatorsFanOutCopyHeldKeepsItsLine(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.log"), filepath.Join(dir, "b.log")
	testkit.WriteFile(t, a, "fan one\n")
	cfg := testConfig(dir)
	cfg.IncludeFilePath = true
	cfg = mustOperators(t, cfg, `
- type: router
  routes: [{expr: 'body startsWith "fan"', output: fan}]
  default: end
- {type: noop, id: fan, output: [held, end]}
- {type: recombine, id: held, combine_field: body, is_first_entry: 'body startsWith "fan"', force_flush_period: 1m, output: end}
- {type: noop, id: end}`)
	m := testkit.NewMemStorage()
	cfg, host := withStorage(cfg, m)
	var gone atomic.Bool
	first := &testkit.LogsSink{Answer: func(context.Context, int, plog.Logs) error {
		if gone.Load() {
			return errors.New("the process is gone")
		}
		return nil
	}}
	r := startReceiver(t, cfg, first, host)
	assert.Equal(t, []string{"fan one"}, first.WaitForBodies(t, 1), "the entry itself, its copy held")
	testkit.AppendFile(t, a, "plain two\n")
	first.WaitForBodies(t, 2)
	// A batch after those, which is handed out only once their checkpoint is written.
	testkit.WriteFile(t, b, "plain three\n")
	first.WaitForBodies(t, 3)
	m.Freeze() // no checkpoint written from now on, as the process died
	gone.Store(true)
	shutdownSoon(t, r) // a crash: the drain cannot reach the consumer that is gone

	m.Thaw()
	again := &testkit.LogsSink{}
	r = startReceiver(t, cfg, again, host)
	testkit.WaitUntil(t, testkit.Timeout, "a.log read again", func() bool {
		return slices.Contains(again.Bodies(), "plain two")
	})
	require.NoError(t, r.Shutdown(context.Background())) // recombine's Stop flushes the copy
	assert.Equal(t, 2, strings.Count(strings.Join(again.Bodies(), "\n"), "fan one"),
		"the entry and its copy, read again: %q", again.Bodies())
}
