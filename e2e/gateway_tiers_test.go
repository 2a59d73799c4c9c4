package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

// tierAgentConfig is a node agent of TestGatewayTiers: the node's web and db access logs (one
// receiver each, so that each batch is of one service), merged by time on the node, exported
// with load_balancing by service.name to the gateways, without a queue, retrying forever.
func tierAgentConfig(dir, node string, gatewayPorts []int) string {
	var hosts []string
	for _, p := range gatewayPorts {
		hosts = append(hosts, fmt.Sprintf("127.0.0.1:%d", p))
	}
	receiver := func(service string) string {
		return fmt.Sprintf(`  mergelog/%[1]s:
    include: [%[2]q]
    start_at: beginning
    poll_interval: 100ms
    timestamp:
      format: clf
    merge:
      enabled: true
      window: 1s
    batch:
      timeout: 100ms
    storage: file_storage
    resource:
      service.name: %[1]s
      k8s.node.name: %[3]s
`, service, filepath.Join(dir, node, service+".log"), node)
	}
	return fmt.Sprintf(`
extensions:
  file_storage:
    directory: %[1]q
    create_directory: true
receivers:
%[2]s%[3]s
exporters:
  load_balancing:
    routing_key: attributes
    routing_attributes: [service.name]
    resolver:
      static:
        hostnames: [%[4]s]
    protocol:
      otlp:
        tls:
          insecure: true
        sending_queue:
          enabled: false
        retry_on_failure:
          enabled: false
    sending_queue:
      enabled: false
    retry_on_failure:
      enabled: true
      initial_interval: 100ms
      max_interval: 500ms
      max_elapsed_time: 0
service:
  extensions: [file_storage]
  telemetry:
    logs:
      level: error
    metrics:
      level: none
  pipelines:
    logs:
      receivers: [mergelog/web, mergelog/db]
      exporters: [load_balancing]
`, filepath.Join(dir, node, "state"), receiver("web"), receiver("db"), strings.Join(hosts, ", "))
}

// tierGatewayConfig is a gateway of TestGatewayTiers: OTLP/gRPC → mergelog with file_storage
// → file exporter, its metrics on promPort.
func tierGatewayConfig(dir string, grpcPort, promPort int, out string) string {
	return fmt.Sprintf(`
receivers:
  otlp:
    protocols:
      grpc:
        endpoint: 127.0.0.1:%d
extensions:
  file_storage/merge:
    directory: %q
    create_directory: true
processors:
  mergelog:
    max_delay: 3s
    idle_timeout: 30s
    release_interval: 50ms
    storage: file_storage/merge
exporters:
  file:
    path: %q
    flush_interval: 100ms
service:
  extensions: [file_storage/merge]
%s
  pipelines:
    logs:
      receivers: [otlp]
      processors: [mergelog]
      exporters: [file]
`, grpcPort, filepath.Join(dir, "state"), out, promTelemetry(promPort))
}

// tierLines appends lines [from, to) of node's service log: CLF lines in the node's own time
// zone (UTC+node hours), line j at base + (3j + node) s, so that the nodes interleave in UTC
// and differ in local time. It returns the request paths, which identify the lines.
func tierLines(t *testing.T, dir string, node int, service string, from, to int) []string {
	t.Helper()
	base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	zone := time.FixedZone("", node*3600)
	var b strings.Builder
	var ids []string
	for j := from; j < to; j++ {
		at := base.Add(time.Duration(3*j+node) * time.Second).In(zone)
		id := fmt.Sprintf("/%s/node-%d/%d", service, node, j)
		fmt.Fprintf(&b, "10.0.0.%d - - [%s] \"GET %s HTTP/1.1\" 200 12\n", node, at.Format("02/Jan/2006:15:04:05 -0700"), id)
		ids = append(ids, id)
	}
	path := filepath.Join(dir, fmt.Sprintf("node-%d", node), service+".log")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	if _, err := f.WriteString(b.String()); err != nil {
		t.Fatal(err)
	}
	return ids
}

// requestPath is the path of a CLF line: what identifies it in TestGatewayTiers.
func requestPath(lr plog.LogRecord) string {
	_, rest, _ := strings.Cut(lr.Body().AsString(), "\"GET ")
	p, _, _ := strings.Cut(rest, " ")
	return p
}

// backwards counts, per service, the records at an instant before one that came earlier in the
// file.
func backwards(recs []plog.LogRecord) int {
	n := 0
	last := map[string]int64{}
	for _, lr := range recs {
		svc := strings.Split(requestPath(lr), "/")[1]
		ts := int64(lr.Timestamp())
		if ts < last[svc] {
			n++
		}
		last[svc] = max(last[svc], ts)
	}
	return n
}

func lateCount(m metrics) float64 {
	return m.sum("otelcol_processor_mergelog_records_late_total") + m.sum("otelcol_processor_mergelog_records_late")
}

// countLines reads the gateways' output files: how often each line (its request path) came
// out, and each file's records.
func countLines(t *testing.T, files ...string) (map[string]int, [][]plog.LogRecord) {
	t.Helper()
	n := map[string]int{}
	var all [][]plog.LogRecord
	for _, f := range files {
		recs := readRecords(t, f)
		all = append(all, recs)
		for _, lr := range recs {
			n[requestPath(lr)]++
		}
	}
	return n, all
}

// checkTierOutputs checks the gateways' outputs once every line is out: none came out that was
// not written, none twice; each gateway's output (outs[i], its metrics on promPorts[i]) goes
// back in time per service only as often as it counted late records; each service came out of
// one gateway. It returns each file's records.
func checkTierOutputs(t *testing.T, want map[string]bool, outs []string, promPorts []int) [][]plog.LogRecord {
	t.Helper()
	n, byFile := countLines(t, outs...)
	for id, k := range n {
		if !want[id] {
			t.Errorf("%s came out, was never written", id)
		} else if k > 1 {
			t.Errorf("%s came out %d times", id, k)
		}
	}
	for i, recs := range byFile {
		services := map[string]bool{}
		for _, lr := range recs {
			services[strings.Split(requestPath(lr), "/")[1]] = true
		}
		late := lateCount(scrape(t, promPorts[i]))
		if b := backwards(recs); float64(b) > late {
			t.Errorf("gateway %d: %d records back in time, %v counted late", i, b, late)
		}
		t.Logf("gateway %d: services %v, %d records, %v late", i, services, len(recs), late)
	}
	for svc := range map[string]bool{"web": true, "db": true} {
		at := 0
		for _, recs := range byFile {
			for _, lr := range recs {
				if strings.HasPrefix(requestPath(lr), "/"+svc+"/") {
					at++
					break
				}
			}
		}
		if at != 1 {
			t.Errorf("service %s came out of %d gateways, want one", svc, at)
		}
	}
	return byFile
}

// TestGatewayTiers is issue 15's end-to-end run without Kafka: three agent processes, each
// reading one node's web and db access logs written in its own time zone, merge their node by
// time and send through load_balancing (by service.name) to two gateway processes, which merge
// the nodes with the mergelog processor (file_storage) into file exporters. Every line comes
// out, each service at one gateway, in UTC order except what the gateway counted late; then
// the gateway that has data is SIGKILLed while more is written, restarted, and nothing is lost.
func TestGatewayTiers(t *testing.T) {
	needCollector(t)
	dir := t.TempDir()
	const perHalf = 300
	want := map[string]bool{}
	for node := range 3 {
		for _, svc := range []string{"web", "db"} {
			for _, id := range tierLines(t, dir, node, svc, 0, perHalf) {
				want[id] = true
			}
		}
	}
	gwPorts, promPorts := []int{freePort(t), freePort(t)}, []int{freePort(t), freePort(t)}
	outs := []string{filepath.Join(dir, "gw-0", "out.jsonl"), filepath.Join(dir, "gw-1", "out.jsonl")}
	gws := make([]*collector, 2)
	for i := range gws {
		cfg := testkit.WriteFile(t, filepath.Join(dir, fmt.Sprintf("gw-%d", i), "config.yaml"),
			tierGatewayConfig(filepath.Join(dir, fmt.Sprintf("gw-%d", i)), gwPorts[i], promPorts[i], outs[i]))
		gws[i] = startCollector(t, cfg)
	}
	for node := range 3 {
		startCollector(t, testkit.WriteFile(t, filepath.Join(dir, fmt.Sprintf("agent-%d.yaml", node)),
			tierAgentConfig(dir, fmt.Sprintf("node-%d", node), gwPorts)))
	}
	testkit.WaitUntil(t, time.Minute, "every line of the first half at the gateways", func() bool {
		n, _ := countLines(t, outs...)
		return len(n) == len(want)
	})
	byFile := checkTierOutputs(t, want, outs, promPorts)

	// The gateway with the most records dies (SIGKILL) while the second half is written; it
	// comes back with the same storage and another output file (the file exporter truncates
	// its file at start).
	victim := 0
	if len(byFile[1]) > len(byFile[0]) {
		victim = 1
	}
	if !gws[victim].end(os.Kill, 10*time.Second) {
		t.Fatal("the gateway did not die on SIGKILL")
	}
	for node := range 3 {
		for _, svc := range []string{"web", "db"} {
			for _, id := range tierLines(t, dir, node, svc, perHalf, 2*perHalf) {
				want[id] = true
			}
		}
	}
	time.Sleep(time.Second) // the agents read the second half and retry towards the dead gateway
	again := filepath.Join(dir, fmt.Sprintf("gw-%d", victim), "out-2.jsonl")
	startCollector(t, testkit.WriteFile(t, filepath.Join(dir, fmt.Sprintf("gw-%d", victim), "config-2.yaml"),
		tierGatewayConfig(filepath.Join(dir, fmt.Sprintf("gw-%d", victim)), gwPorts[victim], promPorts[victim], again)))
	files := append(append([]string(nil), outs...), again)
	testkit.WaitUntil(t, time.Minute, "every line at the gateways after the restart", func() bool {
		n, _ := countLines(t, files...)
		return len(n) == len(want)
	})
	n, _ := countLines(t, files...)
	twice := 0
	for id, k := range n {
		if !want[id] {
			t.Errorf("%s came out, was never written", id)
		}
		twice += k - 1
	}
	t.Logf("%d lines, all out; %d came twice (at least once across the kill)", len(want), twice)
}
