package e2e

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

// TestFaultsOutage stops the downstream collector for a while. Collector A reads o1.log and
// o2.log, each with a mergelog receiver of its own, and sends their records over OTLP/gRPC,
// without a sending queue (a queue would take the records at once and hold them in memory), to
// collector B, which writes them to a file. The two exporters meet the outage in the two ways a
// pipeline can:
//   - otlp_grpc/blocking retries forever (max_elapsed_time 0): ConsumeLogs blocks until B is
//     back, and the receiver waits in it;
//   - otlp_grpc/refused does not retry: ConsumeLogs fails with a retryable error, and the
//     receiver retries the batch itself.
//
// While the receivers wait, each file is rotated by copytruncate and grows past its old size,
// so past where its receiver stopped reading: the file the receiver holds open is no longer the
// one it was reading, and the rest of that one is in the copy. Then the files are rotated by
// move/create and by move with immediate gzip, which compresses the copy too.
//
// Either way the receivers must hold their files back and lose nothing: during the outage A
// accepts no record (nothing is taken and dropped), the blocking receiver is refused nothing,
// the other is refused and retries; when B returns on the same port ingest resumes, and every
// entry written arrives, whole and once (B stops gracefully, so no accepted request is in
// doubt).
func TestFaultsOutage(t *testing.T) {
	needCollector(t)
	const outage = 8 * time.Second
	rng := faultRand(t)
	dir, logs := faultDirs(t)
	grpcPort, promPort := freePort(t), freePort(t)
	b := &runSeries{t: t, dir: dir, config: func(out string) string { return sinkConfig(grpcPort, out) }}
	b.start()
	a := startCollector(t, testkit.WriteFile(t, filepath.Join(dir, "a.yaml"), sourceConfig(dir, grpcPort, promPort)))
	began := time.Now()
	ws := []*logWriter{
		startWriter(t, logs, "o1.log", "o1", "blocking", 400, 0),
		startWriter(t, logs, "o2.log", "o2", "refused", 400, 0),
	}
	testkit.WaitUntil(t, 30*time.Second, "records of both files at B", func() bool {
		n := map[string]int{}
		for _, body := range bodies(t, b.outs[0]) {
			id, _ := parseEntry(body)
			n[id.stream]++
		}
		return n["o1"] >= 200 && n["o2"] >= 200
	})
	time.Sleep(between(rng, 0, time.Second))

	b.end(syscall.SIGTERM)
	down := time.Now()
	// By now each receiver has filled a batch (in 250 ms) and waits on it, and what A had in
	// flight when B went down has failed.
	time.Sleep(time.Second)
	before := scrape(t, promPort)
	copied := make([]int64, len(ws))
	for i, w := range ws {
		info, err := os.Stat(w.rotate(t, copyTruncate))
		if err != nil {
			t.Fatal(err)
		}
		copied[i] = info.Size()
	}
	for i, w := range ws {
		testkit.WaitUntil(t, time.Minute, w.path+" to grow past its size at copytruncate", func() bool {
			info, err := os.Stat(w.path)
			return err == nil && info.Size() > copied[i]
		})
	}
	for _, how := range []rotation{moveCreate, moveCompress} {
		for _, w := range ws {
			w.rotate(t, how)
		}
		time.Sleep(500 * time.Millisecond)
	}
	time.Sleep(time.Until(down.Add(outage)))
	after := scrape(t, promPort)
	select {
	case <-a.exited:
		t.Fatalf("collector A ended during the outage: %v; output:\n%s", a.cmd.ProcessState, a.out.String())
	default:
	}
	const accepted, refused = "otelcol_receiver_accepted_log_records", "otelcol_receiver_refused_log_records"
	acceptedDuring := after.sum(accepted) - before.sum(accepted)
	if acceptedDuring != 0 {
		t.Errorf("A accepted %v records while B was down", acceptedDuring)
	}
	blockingRefused := after.sum(refused, `receiver="mergelog/blocking"`)
	if blockingRefused != 0 {
		t.Errorf("mergelog/blocking was refused %v records: its exporter should have held them, retrying", blockingRefused)
	}
	retried := after.sum(refused, `receiver="mergelog/refused"`) - before.sum(refused, `receiver="mergelog/refused"`)
	if retried == 0 {
		t.Error("mergelog/refused was refused nothing while B was down: its batch was not retried")
	}

	b.start()
	back := time.Now()
	testkit.WaitUntil(t, time.Minute, "a record at B after it returned", func() bool { return len(readRecords(t, b.outs[1])) > 0 })
	resumed := time.Since(back)
	time.Sleep(time.Second)
	for _, w := range ws {
		w.finish(t)
	}
	checkOnDisk(t, logs, ws)
	const quiet = 2 * time.Second
	_, tl := waitDelivered(t, a, ws, b.outs, quiet, 2*time.Minute)
	caughtUp := time.Since(back) - quiet
	final := scrape(t, promPort)
	a.stop(t)
	b.end(syscall.SIGTERM)

	checkEntries(t, tl)
	if tl.dups > 0 {
		t.Errorf("%d records duplicated", tl.dups)
	}
	if n := final.sum("otelcol_receiver_mergelog_consume_errors", `permanent="true"`); n != 0 {
		t.Errorf("%v batches refused for good", n)
	}
	if n := final.sum("otelcol_exporter_send_failed_log_records", `exporter="otlp_grpc/blocking"`); n != 0 {
		t.Errorf("otlp_grpc/blocking gave up on %v records", n)
	}
	report(t, "outage: B down %s while 2 writers wrote %d/s each and rotated by copytruncate, move/create and move+gzip; meanwhile A accepted %v records, mergelog/blocking was refused %v, mergelog/refused %v (its batch, retried); ingest resumed %s after B returned, all in %s; %s; %s",
		back.Sub(down).Round(100*time.Millisecond), ws[0].rate, acceptedDuring, blockingRefused, retried,
		resumed.Round(100*time.Millisecond), caughtUp.Round(100*time.Millisecond), tl, time.Since(began).Round(time.Second))
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port
}

// metrics are the samples of a Prometheus scrape, by series (`name{labels}`).
type metrics map[string]float64

// sum adds the series of the metric name that have all the labels (`key="value"`).
func (m metrics) sum(name string, labels ...string) float64 {
	var s float64
	for k, v := range m {
		n, ls, _ := strings.Cut(k, "{")
		if n != name {
			continue
		}
		ok := true
		for _, l := range labels {
			ok = ok && (strings.Contains(ls, l+",") || strings.Contains(ls, l+"}"))
		}
		if ok {
			s += v
		}
	}
	return s
}

// scrape reads the collector's own metrics from its Prometheus endpoint.
func scrape(t *testing.T, port int) metrics {
	t.Helper()
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Get(fmt.Sprintf("http://127.0.0.1:%d/metrics", port))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	m := metrics{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if i < 0 || err != nil {
			t.Fatalf("metrics: bad line %q", line)
		}
		m[line[:i]] = v
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}

// sourceConfig is collector A of TestFaultsOutage.
func sourceConfig(dir string, grpcPort, promPort int) string {
	logs := filepath.Join(dir, "logs")
	return fmt.Sprintf(`
extensions:
  file_storage:
    directory: %[1]q
    create_directory: true
    compaction:
      directory: %[1]q
receivers:
  # batch.timeout 2s: at 400 entries a second a batch fills within the read, as under load,
  # so the outage stops each receiver in the middle of reading its file.
  mergelog/blocking:
    include: [%[2]q]
    start_at: beginning
    poll_interval: 100ms
    storage: file_storage
    batch:
      max_records: %[6]d
      timeout: 2s
  mergelog/refused:
    include: [%[3]q]
    start_at: beginning
    poll_interval: 100ms
    storage: file_storage
    batch:
      max_records: %[6]d
      timeout: 2s
    retry_on_failure:
      initial_interval: 100ms
      max_interval: 1s
exporters:
%[7]s
  otlp_grpc/refused:
    endpoint: 127.0.0.1:%[4]d
    tls:
      insecure: true
    sending_queue:
      enabled: false
    retry_on_failure:
      enabled: false
service:
  extensions: [file_storage]
%[8]s
  pipelines:
    logs/blocking:
      receivers: [mergelog/blocking]
      exporters: [otlp_grpc/blocking]
    logs/refused:
      receivers: [mergelog/refused]
      exporters: [otlp_grpc/refused]
`, filepath.Join(dir, "storage"), filepath.Join(logs, "o1.log*"), filepath.Join(logs, "o2.log*"),
		grpcPort, promPort, faultBatch, blockingExporter(grpcPort), promTelemetry(promPort))
}

// blockingExporter is the otlp_grpc/blocking exporter of the outage tests, as the shipped agent
// exports: no sending queue, retrying until the gateway is back, so ConsumeLogs blocks.
func blockingExporter(grpcPort int) string {
	return fmt.Sprintf(`  otlp_grpc/blocking:
    endpoint: 127.0.0.1:%d
    compression: snappy
    tls:
      insecure: true
    sending_queue:
      enabled: false
    retry_on_failure:
      enabled: true
      initial_interval: 100ms
      max_interval: 1s
      max_elapsed_time: 0`, grpcPort)
}

// promTelemetry is the service's telemetry section of the outage tests: info logs, and the
// collector's metrics served for scrape on promPort.
func promTelemetry(promPort int) string {
	return fmt.Sprintf(`  telemetry:
    logs:
      level: info
    metrics:
      level: detailed
      readers:
        - pull:
            exporter:
              prometheus:
                host: 127.0.0.1
                port: %d`, promPort)
}

// sinkConfig is collector B of TestFaultsOutage: OTLP/gRPC in, a file out.
func sinkConfig(grpcPort int, out string) string {
	return fmt.Sprintf(`
receivers:
  otlp:
    protocols:
      grpc:
        endpoint: 127.0.0.1:%d
exporters:
  file:
    path: %q
    rotation:
      max_megabytes: 1024
service:
  telemetry:
    logs:
      level: warn
    metrics:
      level: none
  pipelines:
    logs:
      receivers: [otlp]
      exporters: [file]
`, grpcPort, out)
}
