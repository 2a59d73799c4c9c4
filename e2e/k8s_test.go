package e2e

import (
	"bytes"
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

// agentConfig is the node agent's collector config, the file its ConfigMap is generated from.
const agentConfig = "../deploy/kubernetes/agent-config.yaml"

// podLog is an entry the agent must deliver once: its container, stream, body and the
// runtime's time of its first line, and where known the name of the file it is read from.
type podLog struct {
	pod    fakePod
	stream string
	body   string
	time   string
	file   string
}

// fakePod is a container's log directory /var/log/pods/<namespace>_<pod>_<uid>/<container>.
type fakePod struct {
	namespace, name, uid, container string
	restart                         int64
}

func (l podLog) key() string {
	return fmt.Sprint(l.pod.uid, " ", l.pod.restart, " ", l.stream, " ", l.body)
}

func (p fakePod) dir(root string) string {
	return filepath.Join(root, "var", "log", "pods", p.namespace+"_"+p.name+"_"+p.uid, p.container)
}

// cri is one line as containerd and CRI-O write it: "<time> <stream> <P|F> <text>".
func cri(ts, stream, tag, text string) string {
	return ts + " " + stream + " " + tag + " " + text + "\n"
}

// TestKubernetesAgent runs the agent's config (deploy/kubernetes/agent-config.yaml) on a fake
// node: a CRI pod whose stdout and stderr interleave, with partial lines and a Java stack
// trace, rotated by the kubelet (0.log renamed to 0.log.<time>, a new 0.log, the rotated one
// gzipped later) while it is written; a Docker pod, whose log is a symbolic link to Docker's
// json log; the collectors' own pods, which the agent must skip; then the agent stopped while
// the kubelet rotates and gzips again and the container restarts, and a new agent resuming
// from the checkpoints in file_storage. An override (merged over
// the agent's config, as a second --config) moves the paths under a temporary root, adds a
// multiline rule, and replaces the gateway exporter by a file. Every entry must come out
// exactly once, without the runtime's prefix, partial lines joined, with the runtime's time,
// log.iostream and the pod's resource attributes.
func TestKubernetesAgent(t *testing.T) {
	const namespace, node = "otelcol", "node-e2e"
	t.Setenv("K8S_NAMESPACE", namespace)
	t.Setenv("K8S_NODE_NAME", node)
	t.Setenv("K8S_POD_IP", "127.0.0.1")
	root := t.TempDir()

	shop := fakePod{"shop", "checkout-7d9f8b6c5-x2x9q", "3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f", "app", 0}
	web := fakePod{"default", "web-0", "9a8b7c6d-1e2f-4a3b-9c8d-7e6f5a4b3c2d", "nginx", 2}
	agentPod := fakePod{namespace, "otelcol-agent-x7k2p", "11111111-2222-4333-8444-555555555555", "otelcol", 0}
	gatewayPod := fakePod{namespace, "otelcol-gateway-5d8c7b9f4-q2w3e", "66666666-7777-4888-9999-aaaaaaaaaaaa", "otelcol", 0}

	var want []podLog
	// The shop pod before the collector starts: stdout and stderr interleave; the trace on
	// stderr is one entry although a stdout line comes in its middle; a stdout line written
	// in three parts (P, P, F) is one entry with the time of its first part.
	shopLog := filepath.Join(shop.dir(root), "0.log")
	testkit.WriteFile(t, shopLog, ""+
		cri("2026-11-29T10:15:00.123456789Z", "stdout", "F", "2026-11-29 10:15:00.000 INFO checkout started")+
		cri("2026-11-29T10:15:01.000000001Z", "stderr", "F", "2026-11-29 10:15:01.000 ERROR payment failed")+
		cri("2026-11-29T10:15:01.000000002Z", "stderr", "F", "java.lang.IllegalStateException: card declined")+
		cri("2026-11-29T10:15:01.050000000Z", "stdout", "F", "2026-11-29 10:15:01.050 INFO heartbeat")+
		cri("2026-11-29T10:15:01.000000003Z", "stderr", "F", "\tat com.shop.Payment.charge(Payment.java:42)")+
		cri("2026-11-29T10:15:01.000000004Z", "stderr", "F", "\tat com.shop.Checkout.run(Checkout.java:17)")+
		cri("2026-11-29T10:15:02.000000000Z", "stdout", "P", "2026-11-29 10:15:02.000 INFO cart conten")+
		cri("2026-11-29T10:15:02.000000100Z", "stdout", "P", "ts: apples, pe")+
		cri("2026-11-29T10:15:02.000000200Z", "stdout", "F", "ars")+
		cri("2026-11-29T10:15:03.000000000Z", "stdout", "F", "2026-11-29 10:15:03.000 INFO first part done"))
	want = append(want,
		podLog{shop, "stdout", "2026-11-29 10:15:00.000 INFO checkout started", "2026-11-29T10:15:00.123456789Z", "0.log"},
		podLog{shop, "stderr", "2026-11-29 10:15:01.000 ERROR payment failed\njava.lang.IllegalStateException: card declined\n" +
			"\tat com.shop.Payment.charge(Payment.java:42)\n\tat com.shop.Checkout.run(Checkout.java:17)", "2026-11-29T10:15:01.000000001Z", "0.log"},
		podLog{shop, "stdout", "2026-11-29 10:15:01.050 INFO heartbeat", "2026-11-29T10:15:01.050000000Z", "0.log"},
		podLog{shop, "stdout", "2026-11-29 10:15:02.000 INFO cart contents: apples, pears", "2026-11-29T10:15:02.000000000Z", "0.log"},
		podLog{shop, "stdout", "2026-11-29 10:15:03.000 INFO first part done", "2026-11-29T10:15:03.000000000Z", "0.log"})

	// The web pod runs on Docker: /var/log/pods/.../2.log (its third start) links to the json
	// log, in which a line without "\n" is a partial one.
	dockerLog := filepath.Join(root, "var", "lib", "docker", "containers", "4f2a9c", "4f2a9c-json.log")
	testkit.WriteFile(t, dockerLog, ""+
		`{"log":"2026-11-29 10:16:00.000 INFO web up\n","stream":"stdout","time":"2026-11-29T10:16:00.250000000Z"}`+"\n"+
		`{"log":"2026-11-29 10:16:01.000 WARN slow ","stream":"stderr","time":"2026-11-29T10:16:01.000000000Z"}`+"\n"+
		`{"log":"request\n","stream":"stderr","time":"2026-11-29T10:16:01.000000500Z"}`+"\n")
	if err := os.MkdirAll(web.dir(root), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(dockerLog, filepath.Join(web.dir(root), "2.log")); err != nil {
		t.Fatal(err)
	}
	want = append(want,
		podLog{web, "stdout", "2026-11-29 10:16:00.000 INFO web up", "2026-11-29T10:16:00.250000000Z", "2.log"},
		podLog{web, "stderr", "2026-11-29 10:16:01.000 WARN slow request", "2026-11-29T10:16:01.000000000Z", "2.log"})

	// The collectors' own logs: never read.
	for _, p := range []fakePod{agentPod, gatewayPod} {
		testkit.WriteFile(t, filepath.Join(p.dir(root), "0.log"),
			cri("2026-11-29T10:15:00.000000000Z", "stderr", "F", "2026-11-29 10:15:00.000 INFO a collector's own log"))
	}

	// numbered writes n stdout lines of the shop pod, at instants sec.000000000 ... onwards.
	// file is the name they must be read from, "" where reading races with the rotation.
	numbered := func(n int, sec, text, file string) string {
		var b strings.Builder
		for i := range n {
			ts := fmt.Sprintf("2026-11-29T10:15:%s.%09dZ", sec, i)
			body := fmt.Sprintf("2026-11-29 10:15:%s.%03d INFO %s %d", sec, i, text, i)
			b.WriteString(cri(ts, "stdout", "F", body))
			want = append(want, podLog{shop, "stdout", body, ts, file})
		}
		return b.String()
	}

	out1 := filepath.Join(root, "out1.jsonl")
	c := startCollector(t, agentConfig, testkit.WriteFile(t, filepath.Join(root, "override1.yaml"), agentOverride(t, root, out1)))
	waitRecords(t, c, out1, len(want))

	// The kubelet rotates while the container writes: lines appended just before the rename
	// may only be read from the rotated file.
	testkit.AppendFile(t, shopLog, numbered(40, "04", "before rotation", ""))
	rotated := shopLog + ".20261129-101505"
	if err := os.Rename(shopLog, rotated); err != nil {
		t.Fatal(err)
	}
	testkit.WriteFile(t, shopLog, numbered(20, "06", "after rotation", "")+
		cri("2026-11-29T10:15:06.500000000Z", "stderr", "P", "2026-11-29 10:15:06.500 WARN retry")+
		cri("2026-11-29T10:15:06.500000001Z", "stderr", "F", "ing payment"))
	want = append(want, podLog{shop, "stderr", "2026-11-29 10:15:06.500 WARN retrying payment", "2026-11-29T10:15:06.500000000Z", ""})
	// Later the kubelet gzips the rotated file, which must not be read again.
	time.Sleep(300 * time.Millisecond)
	gzipRotated(t, rotated)
	testkit.AppendFile(t, shopLog, numbered(1, "07", "after compression", ""))
	waitRecords(t, c, out1, len(want))
	time.Sleep(2 * time.Second) // duplicates, if any, would come now
	c.stop(t)
	got := readPodRecords(t, out1)

	// The agent is down (an upgrade) while the kubelet rotates and compresses, and the
	// container restarts (1.log): the next agent resumes from the checkpoints in file_storage,
	// reading the rest of the old 0.log from its .gz.
	rotated = shopLog + ".20261129-101509"
	testkit.AppendFile(t, shopLog, numbered(15, "08", "while the agent is down", filepath.Base(rotated)+".gz"))
	if err := os.Rename(shopLog, rotated); err != nil {
		t.Fatal(err)
	}
	gzipRotated(t, rotated)
	restarted := shop
	restarted.restart = 1
	testkit.WriteFile(t, filepath.Join(shop.dir(root), "1.log"),
		cri("2026-11-29T10:15:10.000000000Z", "stdout", "F", "2026-11-29 10:15:10.000 INFO checkout restarted"))
	want = append(want, podLog{restarted, "stdout", "2026-11-29 10:15:10.000 INFO checkout restarted", "2026-11-29T10:15:10.000000000Z", "1.log"})

	out2 := filepath.Join(root, "out2.jsonl")
	c = startCollector(t, agentConfig, testkit.WriteFile(t, filepath.Join(root, "override2.yaml"), agentOverride(t, root, out2)))
	waitRecords(t, c, out2, len(want)-len(got))
	time.Sleep(2 * time.Second)
	c.stop(t)
	got = append(got, readPodRecords(t, out2)...)

	count := map[string]int{}
	for _, r := range got {
		count[r.key()]++
	}
	for _, w := range want {
		if n := count[w.key()]; n != 1 {
			t.Errorf("%s %s %q: delivered %d times, want once", w.pod.name, w.stream, w.body, n)
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %d records, want %d", len(got), len(want))
	}

	wantByKey := map[string]podLog{}
	for _, w := range want {
		wantByKey[w.key()] = w
	}
	for _, r := range got {
		w, ok := wantByKey[r.key()]
		if !ok {
			t.Errorf("unexpected record %q (stream %v, resource %v)", r.body, r.attrs["log.iostream"], r.resource)
			continue
		}
		wantTime, err := time.Parse(time.RFC3339Nano, w.time)
		if err != nil {
			t.Fatal(err)
		}
		if !r.time.Equal(wantTime) {
			t.Errorf("%q: Timestamp %s, want the runtime's %s", r.body, r.time.Format(time.RFC3339Nano), w.time)
		}
		wantResource := map[string]any{
			"k8s.namespace.name":          w.pod.namespace,
			"k8s.pod.name":                w.pod.name,
			"k8s.pod.uid":                 w.pod.uid,
			"k8s.container.name":          w.pod.container,
			"k8s.container.restart_count": w.pod.restart,
			"k8s.node.name":               node,
		}
		for k, v := range wantResource {
			if r.resource[k] != v {
				t.Errorf("%q: resource %s = %v (%T), want %v (%T)", r.body, k, r.resource[k], r.resource[k], v, v)
			}
		}
		p, _ := r.attrs["log.file.path"].(string)
		if filepath.Dir(p) != w.pod.dir(root) || (w.file != "" && filepath.Base(p) != w.file) {
			t.Errorf("%q: log.file.path %q, want %s in %s", r.body, p, cmp.Or(w.file, "a file"), w.pod.dir(root))
		}
	}
}

// agentOverride moves the agent's include and exclude globs under root, keeps file_storage and
// the health check off the machine's shared paths and ports, joins entries by their line start
// in place of the shipped stack-trace detection (a log line and the trace it begins are one
// entry), and writes what would go to the gateway to out.
func agentOverride(t *testing.T, root, out string) string {
	t.Helper()
	data, err := os.ReadFile(agentConfig)
	if err != nil {
		t.Fatal(err)
	}
	retrieved, err := confmap.NewRetrievedFromYAML(data)
	if err != nil {
		t.Fatal(err)
	}
	conf, err := retrieved.AsConf()
	if err != nil {
		t.Fatal(err)
	}
	rooted := func(key string) string {
		globs, _ := conf.Get("receivers::mergelog::" + key).([]any)
		if len(globs) == 0 {
			t.Fatalf("%s: no receivers.mergelog.%s", agentConfig, key)
		}
		var q []string
		for _, g := range globs {
			q = append(q, fmt.Sprintf("%q", filepath.Join(root, fmt.Sprint(g))))
		}
		return "[" + strings.Join(q, ", ") + "]"
	}
	storage := filepath.Join(root, "storage")
	if err := os.MkdirAll(storage, 0o755); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf(`
receivers:
  mergelog:
    include: %s
    exclude: %s
    poll_interval: 50ms
    multiline:
      detect: []
      line_start_pattern: '\d{4}-\d{2}-\d{2} '
extensions:
  file_storage:
    directory: %q
    compaction:
      directory: %q
  health_check:
    endpoint: 127.0.0.1:0
exporters:
  file:
    path: %q
service:
  telemetry:
    metrics:
      level: none
  pipelines:
    logs:
      exporters: [file]
`, rooted("include"), rooted("exclude"), storage, storage, out)
}

// gzipRotated compresses a rotated log as the kubelet does.
func gzipRotated(t *testing.T, path string) {
	t.Helper()
	plain, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	testkit.WriteFile(t, path+".tmp", testkit.Compress(t, testkit.Gzip, plain))
	if err := os.Rename(path+".tmp", path+".gz"); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
}

// podRecord is one exported record with its resource's attributes.
type podRecord struct {
	resource, attrs map[string]any
	body            string
	time            time.Time
}

func (r podRecord) key() string {
	return fmt.Sprint(r.resource["k8s.pod.uid"], " ", r.resource["k8s.container.restart_count"], " ", r.attrs["log.iostream"], " ", r.body)
}

// readPodRecords is readRecords keeping each record's resource attributes, for a file
// whose writer has stopped.
func readPodRecords(t *testing.T, path string) []podRecord {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var recs []podRecord
	var u plog.JSONUnmarshaler
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		logs, err := u.UnmarshalLogs(line)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for i := range logs.ResourceLogs().Len() {
			rl := logs.ResourceLogs().At(i)
			res := rl.Resource().Attributes().AsRaw()
			for j := range rl.ScopeLogs().Len() {
				lrs := rl.ScopeLogs().At(j).LogRecords()
				for k := range lrs.Len() {
					lr := lrs.At(k)
					recs = append(recs, podRecord{res, lr.Attributes().AsRaw(), lr.Body().AsString(), lr.Timestamp().AsTime()})
				}
			}
		}
	}
	return recs
}
