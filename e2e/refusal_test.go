package e2e

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

// gatewayConfig is the gateway's collector config, the file its ConfigMap is generated from.
const gatewayConfig = "../deploy/kubernetes/gateway-config.yaml"

// refusalPod is the pod whose log the refusal tests write.
var refusalPod = fakePod{"shop", "orders-6f7d8c9b5-k4m2n", "0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f", "app", 0}

// entrySizes are the bodies' sizes of sizedEntries: small, a Java trace or JSON payload, larger
// ones, and max_log_size (the agent's default, 1 MiB), many of 3 KiB so that file_log's
// counting of batch bytes would make batches over gRPC's 4 MiB.
var entrySizes = []struct{ size, n int }{{200, 300}, {3 << 10, 2000}, {10 << 10, 200}, {64 << 10, 30}, {1 << 20, 3}}

// refusalEnv sets the variables the shipped configs read (the pod spec's downward API).
func refusalEnv(t *testing.T) {
	t.Setenv("K8S_NAMESPACE", "otelcol")
	t.Setenv("K8S_NODE_NAME", "node-e2e")
	t.Setenv("K8S_POD_IP", "127.0.0.1")
}

// shippedAgent returns the shipped agent config and an override merged over it: the pods' logs
// and the checkpoints under root, the exporter to 127.0.0.1:grpcPort with compression (the
// shipped snappy, or none for a fakeGateway, which has no snappy codec), the metrics on
// promPort.
func shippedAgent(t *testing.T, root string, grpcPort int, compression string, promPort int) []string {
	t.Helper()
	storage := filepath.Join(root, "agent-storage")
	if err := os.MkdirAll(storage, 0o755); err != nil {
		t.Fatal(err)
	}
	return []string{agentConfig, testkit.WriteFile(t, filepath.Join(root, "agent-override.yaml"), fmt.Sprintf(`
receivers:
  mergelog:
    include: [%q]
    poll_interval: 50ms
extensions:
  file_storage:
    directory: %q
  health_check:
    endpoint: 127.0.0.1:0
exporters:
  otlp_grpc:
    endpoint: 127.0.0.1:%d
    compression: %s
service:
%s
`, filepath.Join(root, "var", "log", "pods", "*", "*", "*.log"), storage, grpcPort, compression, promTelemetry(promPort)))}
}

// shippedGateway returns the shipped gateway config and an override merged over it: OTLP on
// 127.0.0.1 (gRPC on grpcPort), the health check on any port, and rest (its exporter and
// pipeline).
func shippedGateway(t *testing.T, root string, grpcPort int, rest string) []string {
	t.Helper()
	return []string{gatewayConfig, testkit.WriteFile(t, filepath.Join(root, "gateway-override.yaml"), fmt.Sprintf(`
receivers:
  otlp:
    protocols:
      grpc:
        endpoint: 127.0.0.1:%d
      http:
        endpoint: 127.0.0.1:%d
extensions:
  health_check:
    endpoint: 127.0.0.1:0
%s`, grpcPort, freePort(t), rest))}
}

// fileExport is the rest of a shippedGateway: its records to the file exporter at out, its
// metrics on promPort.
func fileExport(out string, promPort int) string {
	return fmt.Sprintf(`
exporters:
  file:
    path: %q
service:
%s
  pipelines:
    logs:
      exporters: [file]
`, out, promTelemetry(promPort))
}

// writeEntries appends entries to the pod's CRI log, each "<id> " and x's up to its size, split
// into 16 KiB pieces (P, ..., F) as the kubelet's runtime writes long lines; it returns the
// ids with their bodies' sizes.
func writeEntries(t *testing.T, root, prefix string, sizes []struct{ size, n int }) map[string]int {
	t.Helper()
	path := filepath.Join(refusalPod.dir(root), "0.log")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{}
	var b strings.Builder
	ts := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for _, s := range sizes {
		for i := range s.n {
			id := fmt.Sprintf("%s-%d-%d", prefix, s.size, i)
			body := id + " " + strings.Repeat("x", s.size-len(id)-1)
			want[id] = s.size
			stamp := ts.Format(time.RFC3339Nano)
			for len(body) > 16<<10 {
				b.WriteString(cri(stamp, "stdout", "P", body[:16<<10]))
				body = body[16<<10:]
			}
			b.WriteString(cri(stamp, "stdout", "F", body))
			ts = ts.Add(time.Millisecond)
		}
	}
	testkit.AppendFile(t, path, b.String())
	return want
}

// arrived counts the records by id (a body's first word), failing on a body not of its size.
func arrived(t *testing.T, recs []plog.LogRecord, want map[string]int) map[string]int {
	t.Helper()
	got := map[string]int{}
	for _, lr := range recs {
		body := lr.Body().AsString()
		id, _, _ := strings.Cut(body, " ")
		if size, ok := want[id]; ok && len(body) != size {
			t.Errorf("%s: %d bytes, written %d", id, len(body), size)
		}
		got[id]++
	}
	return got
}

// checkOnce fails for each id that arrived other than once.
func checkOnce(t *testing.T, got, want map[string]int) {
	t.Helper()
	for id := range want {
		if got[id] != 1 {
			t.Errorf("%s arrived %d times, want once", id, got[id])
		}
	}
	for id := range got {
		if _, ok := want[id]; !ok {
			t.Errorf("%s arrived, was never written", id)
		}
	}
}

// droppedRecords is the agent's records_dropped of class (the Prometheus exporter may add
// _total).
func droppedRecords(m metrics, class string) float64 {
	l := fmt.Sprintf("class=%q", class)
	return m.sum("otelcol_receiver_mergelog_records_dropped_total", l) + m.sum("otelcol_receiver_mergelog_records_dropped", l)
}

// TestRefusalShippedAgentToShippedGateway is issue 21's first finding: the shipped agent config
// sending to the shipped gateway config (an otlp receiver with its max_recv_msg_size_mib), entries
// of 200 B, 3 KiB, 10 KiB, 64 KiB and max_log_size: every entry arrives once, none dropped.
func TestRefusalShippedAgentToShippedGateway(t *testing.T) {
	needCollector(t)
	refusalEnv(t)
	root := t.TempDir()
	want := writeEntries(t, root, "e", entrySizes)
	grpcPort, agentProm, gwProm := freePort(t), freePort(t), freePort(t)
	out := filepath.Join(root, "gateway-out.jsonl")
	gw := startCollector(t, shippedGateway(t, root, grpcPort, fileExport(out, gwProm))...)
	agent := startCollector(t, shippedAgent(t, root, grpcPort, "snappy", agentProm)...)
	logOnFailure(t, "agent", agent)
	recs := waitRecords(t, gw, out, len(want))
	checkOnce(t, arrived(t, recs, want), want)
	m := scrape(t, agentProm)
	for _, class := range []string{"size", "auth", "data", "other"} {
		if n := droppedRecords(m, class); n != 0 {
			t.Errorf("the agent dropped %v records for %s refusals", n, class)
		}
	}
}

// fakeGateway is an OTLP/gRPC server on loopback that answers each export with answer's error
// (nil: accepted, its records counted by id).
type fakeGateway struct {
	plogotlp.UnimplementedGRPCServer
	answer func(ld plog.Logs) error
	mu     sync.Mutex
	got    map[string]int
}

func (g *fakeGateway) Export(_ context.Context, req plogotlp.ExportRequest) (plogotlp.ExportResponse, error) {
	if err := g.answer(req.Logs()); err != nil {
		return plogotlp.NewExportResponse(), err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, body := range testkit.BodiesOf(req.Logs()) {
		id, _, _ := strings.Cut(body, " ")
		g.got[id]++
	}
	return plogotlp.NewExportResponse(), nil
}

func (g *fakeGateway) accepted() map[string]int {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make(map[string]int, len(g.got))
	for k, v := range g.got {
		out[k] = v
	}
	return out
}

// startFakeGateway serves a fakeGateway (with gRPC's default 4 MiB limit) and returns it and
// its port.
func startFakeGateway(t *testing.T, answer func(ld plog.Logs) error) (*fakeGateway, int) {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := &fakeGateway{answer: answer, got: map[string]int{}}
	srv := grpc.NewServer()
	plogotlp.RegisterGRPCServer(srv, g)
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	return g, lis.Addr().(*net.TCPAddr).Port
}

// refusedFor answers err for d from the first call, then nil.
func refusedFor(d time.Duration, err error) func(plog.Logs) error {
	var once sync.Once
	var first time.Time
	return func(plog.Logs) error {
		once.Do(func() { first = time.Now() })
		if time.Since(first) < d {
			return err
		}
		return nil
	}
}

// logOnFailure logs c's output at the end of a failed test.
func logOnFailure(t *testing.T, name string, c *collector) {
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("%s output:\n%s", name, c.out.String())
		}
	})
}

// waitAccepted waits until every wanted id was accepted by g.
func waitAccepted(t *testing.T, g *fakeGateway, want map[string]int) map[string]int {
	t.Helper()
	var got map[string]int
	testkit.WaitUntil(t, time.Minute, "every entry accepted by the gateway", func() bool {
		got = g.accepted()
		for id := range want {
			if got[id] == 0 {
				return false
			}
		}
		return true
	})
	return got
}

// A gateway whose credentials were rotated answers Unauthenticated for 10 s: the agent holds
// (warning, naming the error), reads on what it can hold, and once the gateway accepts every
// entry arrives once, those written during the hold included.
func TestRefusalGatewayUnauthenticatedForAWhile(t *testing.T) {
	needCollector(t)
	refusalEnv(t)
	root := t.TempDir()
	g, port := startFakeGateway(t, refusedFor(10*time.Second, status.Error(codes.Unauthenticated, "token rotated")))
	want := writeEntries(t, root, "before", []struct{ size, n int }{{200, 500}, {3 << 10, 200}})
	agentProm := freePort(t)
	agent := startCollector(t, shippedAgent(t, root, port, "none", agentProm)...)
	logOnFailure(t, "agent", agent)
	testkit.WaitUntil(t, time.Minute, "the agent's warning that it holds", func() bool {
		return strings.Contains(agent.out.String(), "holding them")
	})
	for id, size := range writeEntries(t, root, "during", []struct{ size, n int }{{200, 300}}) {
		want[id] = size
	}
	checkOnce(t, waitAccepted(t, g, want), want)
	if log := agent.out.String(); !strings.Contains(log, "Unauthenticated") || !strings.Contains(log, "token rotated") {
		t.Error("the hold's warning does not name the error")
	}
	if n := droppedRecords(scrape(t, agentProm), "auth"); n != 0 {
		t.Errorf("%v records dropped for auth", n)
	}
}

// A gateway that refuses one record as InvalidArgument: that record alone is dropped, counted
// and named (file and offset); every other entry arrives once.
func TestRefusalGatewayRefusesOneRecord(t *testing.T) {
	needCollector(t)
	refusalEnv(t)
	root := t.TempDir()
	const poison = "e-200-123"
	g, port := startFakeGateway(t, func(ld plog.Logs) error {
		if slices.ContainsFunc(testkit.BodiesOf(ld), func(body string) bool { return strings.HasPrefix(body, poison+" ") }) {
			return status.Error(codes.InvalidArgument, "record "+poison+" is invalid")
		}
		return nil
	})
	want := writeEntries(t, root, "e", []struct{ size, n int }{{200, 1000}})
	agentProm := freePort(t)
	agent := startCollector(t, shippedAgent(t, root, port, "none", agentProm)...)
	logOnFailure(t, "agent", agent)
	delete(want, poison)
	got := waitAccepted(t, g, want)
	testkit.WaitUntil(t, 30*time.Second, "the drop counted", func() bool { return droppedRecords(scrape(t, agentProm), "data") == 1 })
	checkOnce(t, got, want)
	logPath := filepath.Join(refusalPod.dir(root), "0.log")
	content, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(content, []byte(" F "+poison+" "))
	if at < 0 {
		t.Fatalf("%s: no line of %s", logPath, poison)
	}
	offset := bytes.LastIndexByte(content[:at], '\n') + 1
	var named bool
	for _, line := range strings.Split(agent.out.String(), "\n") {
		named = named || strings.Contains(line, "dropped") && strings.Contains(line, logPath) && strings.Contains(line, fmt.Sprintf(`"offset": %d,`, offset))
	}
	if !named {
		t.Errorf("no drop logged naming %s at offset %d", logPath, offset)
	}
}

// The shipped gateway collector whose own exporter (otlp_http, no queue) fails for good: its
// backend answers 500 for 10 s, which otlp_http calls permanent; the gateway answers the agent
// Unknown, the agent finds both halves refused and holds; nothing is lost.
func TestRefusalGatewayPipelineFailsForGood(t *testing.T) {
	needCollector(t)
	refusalEnv(t)
	root := t.TempDir()
	var mu sync.Mutex
	got := map[string]int{}
	var first time.Time
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if first.IsZero() {
			first = time.Now()
		}
		if time.Since(first) < 10*time.Second {
			http.Error(w, "backend broken", http.StatusInternalServerError)
			return
		}
		body, err := io.ReadAll(r.Body)
		req := plogotlp.NewExportRequest()
		if err == nil {
			err = req.UnmarshalProto(body)
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		for _, body := range testkit.BodiesOf(req.Logs()) {
			id, _, _ := strings.Cut(body, " ")
			got[id]++
		}
		w.Header().Set("Content-Type", "application/x-protobuf")
		resp, _ := plogotlp.NewExportResponse().MarshalProto()
		_, _ = w.Write(resp)
	}))
	defer backend.Close()
	grpcPort := freePort(t)
	gw := startCollector(t, shippedGateway(t, root, grpcPort, fmt.Sprintf(`
exporters:
  otlp_http:
    logs_endpoint: %s/v1/logs
    compression: none
    sending_queue:
      enabled: false
    retry_on_failure:
      enabled: false
service:
  telemetry:
    metrics:
      level: none
  pipelines:
    logs:
      exporters: [otlp_http]
`, backend.URL))...)
	logOnFailure(t, "gateway", gw)
	want := writeEntries(t, root, "e", []struct{ size, n int }{{200, 500}, {3 << 10, 100}})
	agentProm := freePort(t)
	agent := startCollector(t, shippedAgent(t, root, grpcPort, "snappy", agentProm)...)
	logOnFailure(t, "agent", agent)
	testkit.WaitUntil(t, time.Minute, "every entry at the backend", func() bool {
		mu.Lock()
		defer mu.Unlock()
		for id := range want {
			if got[id] == 0 {
				return false
			}
		}
		return true
	})
	mu.Lock()
	checkOnce(t, got, want)
	mu.Unlock()
	if !strings.Contains(agent.out.String(), "holding them") {
		t.Error("no hold warning")
	}
	if n := droppedRecords(scrape(t, agentProm), "other"); n != 0 {
		t.Errorf("%v records dropped for other refusals", n)
	}
}
