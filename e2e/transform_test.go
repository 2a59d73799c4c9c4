package e2e

import (
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

// TestParsingStatements runs examples/parsing.yaml, the transform statements that replace
// file_log's operator chains, on one line of each kind and checks what each statement did.
func TestParsingStatements(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "logs", "app.log"),
		`{"level":"warn","msg":"disk almost full","service":"billing","ts":"2026-11-29T10:00:00+0100"}`+"\n"+
			`203.0.113.9 - alice [29/Nov/2026:10:00:01 +0900] "GET /cart HTTP/1.1" 503 1234`+"\n"+
			`level=error msg=timeout service=checkout`+"\n")
	out := filepath.Join(dir, "out.jsonl")
	override := testkit.WriteFile(t, filepath.Join(dir, "override.yaml"), fmt.Sprintf(`
receivers:
  mergelog:
    include: [%q]
    start_at: beginning
    poll_interval: 50ms
exporters:
  file:
    path: %q
service:
  # The example keeps the collector's default telemetry, a Prometheus endpoint on :8888, which
  # another collector on the machine may hold.
  telemetry:
    metrics:
      level: none
  pipelines:
    logs:
      exporters: [file]
`, filepath.Join(dir, "logs", "*.log"), out))
	c := startCollector(t, "../examples/parsing.yaml", override)
	recs := waitRecords(t, c, out, 3)
	byBody := map[string]plog.LogRecord{}
	for _, r := range recs {
		byBody[r.Body().Str()[:5]] = r
	}

	// json_parser + time_parser (ISO) + severity_parser + add.
	j := byBody[`{"lev`]
	want := time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC)
	attr := j.Attributes().AsRaw()
	check(t, "json msg", attr["msg"], "disk almost full")
	check(t, "json severity", j.SeverityText(), "WARN")
	check(t, "json severity number", j.SeverityNumber(), plog.SeverityNumberWarn)
	check(t, "json time", j.Timestamp().AsTime().UTC(), want)
	check(t, "json service", attr["service"], "billing")
	check(t, "json env added", attr["env"], "prod")

	// regex_parser + time_parser (CLF) + move (status → http.response.status_code) + remove (user).
	a := byBody["203.0"]
	attr = a.Attributes().AsRaw()
	check(t, "clf client", attr["client"], "203.0.113.9")
	check(t, "clf path", attr["path"], "/cart")
	check(t, "clf status moved", attr["http.response.status_code"], int64(503))
	check(t, "clf status removed", attr["status"], nil)
	check(t, "clf user removed", attr["user"], nil)
	check(t, "clf time", a.Timestamp().AsTime().UTC(), time.Date(2026, 11, 29, 1, 0, 1, 0, time.UTC))
	check(t, "clf 5xx severity", a.SeverityNumber(), plog.SeverityNumberError)

	// key_value_parser + severity_parser.
	k := byBody["level"]
	attr = k.Attributes().AsRaw()
	check(t, "kv msg", attr["msg"], "timeout")
	check(t, "kv severity", k.SeverityText(), "ERROR")
	check(t, "kv service", attr["service"], "checkout")
}

func check(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: got %v (%T), want %v (%T)", what, got, got, want, want)
	}
}
