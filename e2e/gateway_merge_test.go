package e2e

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

// gatewayMergeConfig is examples/gateway-merge.yaml on local ports and paths, with a short
// max_delay: OTLP/HTTP → mergelog (file_storage in dir) → file exporter writing out.
func gatewayMergeConfig(httpPort int, dir, out string) string {
	return fmt.Sprintf(`
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:%d
extensions:
  file_storage/merge:
    directory: %q
processors:
  mergelog:
    max_delay: 5s
    idle_timeout: 30s
    release_interval: 50ms
    storage: file_storage/merge
exporters:
  file:
    path: %q
    # The file exporter buffers what it accepted for flush_interval (1 s by default): a
    # SIGKILL loses that much. The test kills well after it flushed.
    flush_interval: 100ms
service:
  extensions: [file_storage/merge]
  telemetry:
    logs:
      level: warn
    metrics:
      level: none
  pipelines:
    logs:
      receivers: [otlp]
      processors: [mergelog]
      exporters: [file]
`, httpPort, dir, out)
}

// mergeSender posts OTLP/HTTP batches, one node and one service each, as agents would.
type mergeSender struct {
	t    *testing.T
	url  string
	base time.Time
	sent map[string]bool // bodies
}

// send posts one batch of node's records of service at the given instants (ms after base),
// bodies "service node instant".
func (s *mergeSender) send(service, node string, instants ...int) {
	s.t.Helper()
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", service)
	rl.Resource().Attributes().PutStr("k8s.node.name", node)
	recs := rl.ScopeLogs().AppendEmpty().LogRecords()
	for _, ms := range instants {
		lr := recs.AppendEmpty()
		lr.SetTimestamp(pcommon.NewTimestampFromTime(s.base.Add(time.Duration(ms) * time.Millisecond)))
		body := fmt.Sprintf("%s %s %d", service, node, ms)
		lr.Body().SetStr(body)
		s.sent[body] = true
	}
	// An OTLP export request is LogsData on the wire (field 1, the resource logs).
	data, err := (&plog.ProtoMarshaler{}).MarshalLogs(ld)
	if err != nil {
		s.t.Fatal(err)
	}
	testkit.WaitUntil(s.t, 30*time.Second, "the gateway to take a batch", func() bool {
		resp, err := http.Post(s.url, "application/x-protobuf", bytes.NewReader(data))
		if err != nil {
			return false // not listening yet
		}
		_ = resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
}

// round sends, for each service, one batch per node covering 100 ms of record time from
// start, the nodes' records interleaved in time (node i at start+i, +3, +6, …).
func (s *mergeSender) round(start int, services, nodes []string) {
	for _, svc := range services {
		for i, node := range nodes {
			var instants []int
			for ms := start + i; ms < start+100; ms += len(nodes) {
				instants = append(instants, ms)
			}
			s.send(svc, node, instants...)
		}
	}
}

// checkMerged checks the merged output: every body sent is there, and per service the instants
// never go back, except where a restart replays (from start on, compared separately).
func checkMerged(t *testing.T, recs []plog.LogRecord, sent map[string]bool) {
	t.Helper()
	got := map[string]int{}
	last := map[string]int64{}
	backwards := 0
	for _, lr := range recs {
		body := lr.Body().Str()
		got[body]++
		svc, _, _ := strings.Cut(body, " ")
		ts := int64(lr.Timestamp())
		if ts < last[svc] {
			backwards++
			if backwards <= 5 {
				t.Errorf("%s: %q goes back in time", svc, body)
			}
		}
		last[svc] = max(last[svc], ts)
	}
	for body := range sent {
		if got[body] == 0 {
			t.Errorf("%q was sent and is not in the output", body)
		}
	}
	for body, n := range got {
		if !sent[body] {
			t.Errorf("%q is in the output, never sent", body)
		} else if n > 1 {
			t.Errorf("%q is in the output %d times", body, n)
		}
	}
}

// TestGatewayMerge runs the order-keeping gateway (mergelog → file exporter) in the built
// collector: three nodes' records of two services, sent as agents would (batches of one node
// each, nodes interleaved in time, out of step), come out once each, in time order per
// service. Then records held when the gateway is SIGKILLed are replayed from file_storage by
// the next start: nothing is lost.
func TestGatewayMerge(t *testing.T) {
	needCollector(t)
	dir := t.TempDir()
	port := freePort(t)
	out := filepath.Join(dir, "merged.jsonl")
	cfg := testkit.WriteFile(t, filepath.Join(dir, "gateway.yaml"), gatewayMergeConfig(port, dir, out))
	s := &mergeSender{t: t, url: fmt.Sprintf("http://127.0.0.1:%d/v1/logs", port),
		base: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), sent: map[string]bool{}}
	services, nodes := []string{"web", "db"}, []string{"node-1", "node-2", "node-3"}

	gw := startCollector(t, cfg)
	for r := range 20 {
		s.round(100*r, services, nodes)
	}
	recs := waitRecords(t, gw, out, len(s.sent))
	checkMerged(t, recs, s.sent)

	// node-3 falls behind: what node-1 and node-2 send after it is held, for max_delay, when
	// the gateway is killed.
	s.send("web", "node-3", 2000)
	s.send("web", "node-1", 2001, 2004, 2007)
	s.send("web", "node-2", 2002, 2005, 2008)
	// What those arrivals released is in the file after a flush; the rest waits max_delay (5 s).
	time.Sleep(500 * time.Millisecond)
	if !gw.end(os.Kill, 10*time.Second) {
		t.Fatal("the gateway did not die on SIGKILL")
	}
	before := readRecords(t, out)
	held := len(s.sent) - len(before)
	if held == 0 {
		t.Fatal("the gateway released everything before it was killed: nothing held to replay")
	}
	// The file exporter truncates its file at start: the second run writes another.
	out2 := filepath.Join(dir, "merged-2.jsonl")
	gw2 := startCollector(t, testkit.WriteFile(t, filepath.Join(dir, "gateway-2.yaml"), gatewayMergeConfig(port, dir, out2)))
	after := waitRecords(t, gw2, out2, held)
	checkMerged(t, append(before, after...), s.sent)
	t.Logf("%d records merged, %d held at the kill and replayed", len(s.sent), held)
}
