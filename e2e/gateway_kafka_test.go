package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

// The Kafka component's collector configs, run here as the pods run them, with a test layer
// over each (brokers, paths, ports, shorter timeouts).
const (
	kafkaAgentLayer   = "../deploy/kubernetes/components/kafka/agent-kafka.yaml"
	kafkaGatewayLayer = "../deploy/kubernetes/components/kafka/gateway-config.yaml"
	// The topic and the consumer group those configs name.
	kafkaTopic = "otlp_logs"
	kafkaGroup = "otelcol-gateway"
	// More partitions than gateways, as the README advises.
	kafkaPartitions = 6
)

// kafkaAgentOverride is laid over tierAgentConfig and the component's agent-kafka.yaml: each
// receiver's resource gains the component's merge key (one namespace, the container named as
// the service), the memory_limiter the agent's base config has, and the exporter the broker.
func kafkaAgentOverride(broker string) string {
	return fmt.Sprintf(`
receivers:
  mergelog/web:
    resource:
      k8s.namespace.name: shop
      k8s.container.name: web
  mergelog/db:
    resource:
      k8s.namespace.name: shop
      k8s.container.name: db
processors:
  memory_limiter:
    check_interval: 1s
    limit_mib: 400
exporters:
  kafka:
    brokers: [%q]
    retry_on_failure:
      initial_interval: 100ms
      max_interval: 500ms
`, broker)
}

// kafkaGatewayOverride is laid over the component's gateway-config.yaml: the broker, a short
// session timeout (so that the partitions of a killed gateway move within seconds), local
// ports, storage in dir, max_delay as in TestGatewayTiers, and a file exporter writing out.
func kafkaGatewayOverride(broker, dir string, healthPort, promPort int, out string) string {
	return fmt.Sprintf(`
receivers:
  kafka:
    brokers: [%q]
    session_timeout: 5s
    heartbeat_interval: 500ms
extensions:
  health_check:
    endpoint: 127.0.0.1:%d
  file_storage/merge:
    directory: %q
    create_directory: true
processors:
  mergelog:
    max_delay: 3s
    idle_timeout: 30s
    release_interval: 50ms
exporters:
  file:
    path: %q
    flush_interval: 100ms
service:
%s
  pipelines:
    logs:
      exporters: [file]
`, broker, healthPort, filepath.Join(dir, "state"), out, promTelemetry(promPort))
}

// startKafka runs kfake, franz-go's in-process Kafka cluster, on a local port, with the
// component's topic made beforehand as the README says.
func startKafka(t *testing.T) (*kfake.Cluster, string) {
	t.Helper()
	c, err := kfake.NewCluster(
		kfake.NumBrokers(1),
		kfake.SeedTopics(kafkaPartitions, kafkaTopic),
		kfake.GroupMinSessionTimeout(time.Second),
	)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close) // after the collectors, whose cleanups run first
	return c, c.ListenAddrs()[0]
}

// waitGroup waits until the consumer group is stable with the given number of members and
// every partition assigned.
func waitGroup(t *testing.T, c *kfake.Cluster, members int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	g, err := c.WaitGroupInfo(ctx, kafkaGroup, func(g *kfake.GroupInfo) bool {
		return g != nil && g.State == "Stable" && len(g.Members) == members && g.NumAssigned() == kafkaPartitions
	})
	if err != nil {
		t.Fatalf("consumer group %s: want %d members holding %d partitions, got %+v: %v", kafkaGroup, members, kafkaPartitions, g, err)
	}
}

// partitionsByService reads the whole topic with a plain consumer (no group) and returns, per
// service, the partitions its records are in, once n records are read.
func partitionsByService(t *testing.T, broker string, n int) map[string]map[int32]bool {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(broker), kgo.ConsumeTopics(kafkaTopic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	parts := map[string]map[int32]bool{}
	var u plog.ProtoUnmarshaler
	for read := 0; read < n; {
		fetches := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			t.Fatalf("read %d records of %d from the topic: %v", read, n, err)
		}
		fetches.EachRecord(func(r *kgo.Record) {
			ld, err := u.UnmarshalLogs(r.Value)
			if err != nil {
				t.Fatalf("partition %d offset %d: %v", r.Partition, r.Offset, err)
			}
			for _, rl := range ld.ResourceLogs().All() {
				if got := rl.Resource().Attributes().AsRaw(); len(got) != 2 || got["k8s.namespace.name"] == nil || got["k8s.container.name"] == nil {
					t.Fatalf("partition %d offset %d: resource %v, want the merge key alone (it keys the partition)", r.Partition, r.Offset, got)
				}
				for _, sl := range rl.ScopeLogs().All() {
					for _, lr := range sl.LogRecords().All() {
						svc := strings.Split(requestPath(lr), "/")[1]
						if parts[svc] == nil {
							parts[svc] = map[int32]bool{}
						}
						parts[svc][r.Partition] = true
						read++
					}
				}
			}
		})
	}
	return parts
}

// checkResourcesRestored checks that every resource a gateway wrote is the agent's whole
// resource again (the node, the service), and that no scope keeps the copy it travelled in.
func checkResourcesRestored(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var u plog.JSONUnmarshaler
	for line := range strings.Lines(string(data)) {
		if !strings.HasSuffix(line, "\n") {
			continue // still being written
		}
		ld, err := u.UnmarshalLogs([]byte(line))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, rl := range ld.ResourceLogs().All() {
			attrs := rl.Resource().Attributes()
			_, node := attrs.Get("k8s.node.name")
			_, svc := attrs.Get("service.name")
			if !node || !svc {
				t.Fatalf("%s: resource %v, want the agent's (k8s.node.name, service.name) back", path, attrs.AsRaw())
			}
			for _, sl := range rl.ScopeLogs().All() {
				if _, ok := sl.Scope().Attributes().Get("mergelog.resource"); ok {
					t.Fatalf("%s: the scope still holds mergelog.resource", path)
				}
			}
		}
	}
}

// TestGatewayKafka is issue 15's end-to-end run on the Kafka wire protocol: kfake, franz-go's
// in-process cluster, in the test process; three agent processes as in TestGatewayTiers
// (each node's web and db access logs in its own time zone, receiver merge on) with the Kafka
// component's agent layer (resources reduced to the merge key, kafka exporter keyed by them);
// two gateway processes with its gateway layer (kafka receiver in one consumer group, offsets
// marked after ConsumeLogs, the resource put back, mergelog with file_storage), file exporters.
// Every line comes out once, each service from one partition and one gateway, in UTC order
// except what was counted late; then the gateway with the most records is SIGKILLed, its
// partitions move to the other, and every line written afterwards comes out there; last it
// comes back with its storage, takes partitions back, and a third part comes out: none lost.
func TestGatewayKafka(t *testing.T) {
	needCollector(t)
	dir := t.TempDir()
	cluster, broker := startKafka(t)
	const perHalf = 300
	want := map[string]bool{}
	write := func(from, to int) {
		for node := range 3 {
			for _, svc := range []string{"web", "db"} {
				for _, id := range tierLines(t, dir, node, svc, from, to) {
					want[id] = true
				}
			}
		}
	}
	write(0, perHalf)

	promPorts := []int{freePort(t), freePort(t)}
	outs := []string{filepath.Join(dir, "gw-0", "out.jsonl"), filepath.Join(dir, "gw-1", "out.jsonl")}
	gws := make([]*collector, 2)
	for i := range gws {
		gwDir := filepath.Join(dir, fmt.Sprintf("gw-%d", i))
		gws[i] = startCollector(t, kafkaGatewayLayer, testkit.WriteFile(t, filepath.Join(gwDir, "override.yaml"),
			kafkaGatewayOverride(broker, gwDir, freePort(t), promPorts[i], outs[i])))
	}
	// Both gateways in the group before anything is produced: a rebalance while records flow
	// would hand on partitions with marked but uncommitted offsets, which come twice.
	waitGroup(t, cluster, 2)
	for node := range 3 {
		name := fmt.Sprintf("node-%d", node)
		// tierAgentConfig's load_balancing exporter stays defined, unused: the pipeline's
		// exporters are the Kafka layer's.
		startCollector(t,
			testkit.WriteFile(t, filepath.Join(dir, name+"-agent.yaml"), tierAgentConfig(dir, name, []int{freePort(t)})),
			kafkaAgentLayer,
			testkit.WriteFile(t, filepath.Join(dir, name+"-kafka.yaml"), kafkaAgentOverride(broker)))
	}
	testkit.WaitUntil(t, time.Minute, "every line of the first half at the gateways", func() bool {
		n, _ := countLines(t, outs...)
		return len(n) == len(want)
	})
	byFile := checkTierOutputs(t, want, outs, promPorts)
	for _, out := range outs {
		checkResourcesRestored(t, out)
	}
	for svc, ps := range partitionsByService(t, broker, len(want)) {
		if len(ps) != 1 {
			t.Errorf("service %s is in partitions %v, want one", svc, ps)
		}
	}

	// The gateway with the most records dies (SIGKILL). Nothing it took is lost: it released
	// all of the first half, and what it had marked it had stored first. Its partitions move to
	// the other gateway after the session timeout, which then merges the second half.
	victim := 0
	if len(byFile[1]) > len(byFile[0]) {
		victim = 1
	}
	survivor := 1 - victim
	if !gws[victim].end(os.Kill, 10*time.Second) {
		t.Fatal("the gateway did not die on SIGKILL")
	}
	write(perHalf, 2*perHalf)
	waitGroup(t, cluster, 1)
	testkit.WaitUntil(t, time.Minute, "every line at the gateways after the kill", func() bool {
		n, _ := countLines(t, outs...)
		return len(n) == len(want)
	})
	checkNoneLost(t, want, outs, map[int]int{survivor: promPorts[survivor]})

	// It comes back with its volume, as a StatefulSet's pod does: it replays what it had stored
	// and not released (the partition's new owner never sees that: its offsets were committed),
	// rejoins the group and takes partitions back while a third part is written.
	victimDir := filepath.Join(dir, fmt.Sprintf("gw-%d", victim))
	again := filepath.Join(victimDir, "out-2.jsonl")
	startCollector(t, kafkaGatewayLayer, testkit.WriteFile(t, filepath.Join(victimDir, "override-2.yaml"),
		kafkaGatewayOverride(broker, victimDir, freePort(t), promPorts[victim], again)))
	waitGroup(t, cluster, 2)
	write(2*perHalf, 3*perHalf)
	files := append(append([]string(nil), outs...), again)
	testkit.WaitUntil(t, time.Minute, "every line at the gateways after the restart", func() bool {
		n, _ := countLines(t, files...)
		return len(n) == len(want)
	})
	checkNoneLost(t, want, files, map[int]int{survivor: promPorts[survivor], 2: promPorts[victim]})
}

// checkNoneLost checks, once every line is out of files, that none came out that was never
// written, and that each file files[i] whose gateway's metrics are on promPorts[i] goes back
// in time per service only as often as that gateway counted late records; it logs how many
// came twice (at least once across kills and rebalances).
func checkNoneLost(t *testing.T, want map[string]bool, files []string, promPorts map[int]int) {
	t.Helper()
	n, byFile := countLines(t, files...)
	twice := 0
	for id, k := range n {
		if !want[id] {
			t.Errorf("%s came out, was never written", id)
		}
		twice += k - 1
	}
	for i, port := range promPorts {
		late := lateCount(scrape(t, port))
		if b := backwards(byFile[i]); float64(b) > late {
			t.Errorf("%s: %d records back in time, %v counted late", files[i], b, late)
		}
		t.Logf("%s: %d records, %v late", filepath.Base(filepath.Dir(files[i]))+"/"+filepath.Base(files[i]), len(byFile[i]), late)
	}
	t.Logf("%d lines, all out; %d came twice", len(want), twice)
}
