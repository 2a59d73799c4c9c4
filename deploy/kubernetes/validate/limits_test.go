package validate

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// Every shipped gateway that takes OTLP/gRPC sets its receive limit deliberately (gRPC's
// default, 4 MiB, is what a batch must fit unless it is raised).
func TestGatewaysSetTheirReceiveLimit(t *testing.T) {
	for _, rel := range []string{"gateway-config.yaml", "components/merge/gateway-config.yaml", "../../examples/gateway-merge.yaml"} {
		t.Run(rel, func(t *testing.T) {
			if _, ok := receiveLimit(parseConfig(t, rel)); !ok {
				t.Error("receivers.otlp.protocols.grpc.max_recv_msg_size_mib: want it set")
			}
		})
	}
}

// Each shipped agent's batches fit its next hop: the receiver's batch.max_bytes (encoded OTLP,
// set by the agent) is at most the gateway's OTLP/gRPC receive limit, or the Kafka producer's
// max_message_bytes. Checked for the deployment as shipped (with load_balancing merged over the
// agent too) and for the merge and Kafka overlays.
func TestAgentBatchesFitTheNextHop(t *testing.T) {
	d := load(t)
	base := parseConfig(t, d.configFile(t, d.agent(t)))
	gw := parseConfig(t, d.configFile(t, d.gateway(t)))
	t.Run("deployed", func(t *testing.T) { checkBatchesFit(t, base, gw) })
	t.Run("load_balancing", func(t *testing.T) {
		checkBatchesFit(t, base.merged(parseConfig(t, "examples/agent-load-balancing.yaml")), gw)
	})
	for _, components := range mergeOverlays {
		t.Run(strings.Join(components, "+"), func(t *testing.T) {
			r := render(t, overlay(t, components...))
			agent, _ := r.configOf(t, r.daemonSets[0].Spec.Template.Spec)
			gw, _ := r.configOf(t, r.statefulSets[0].Spec.Template.Spec)
			checkBatchesFit(t, agent, gw)
		})
	}
}

func checkBatchesFit(t *testing.T, agent, gw collectorConfig) {
	t.Helper()
	maxBytes, err := byteSize(agent.get("receivers", "mergelog", "batch", "max_bytes"))
	if err != nil {
		t.Fatalf("the agent's receivers.mergelog.batch.max_bytes: %v", err)
	}
	id := agent.logsExporter(t)
	exp := collectorConfig(agent.get("exporters", id).(map[string]any))
	switch componentType(id) {
	case "otlp_grpc", "load_balancing":
		mib, ok := receiveLimit(gw)
		if !ok {
			t.Fatal("the gateway's receivers.otlp.protocols.grpc.max_recv_msg_size_mib: want it set")
		}
		if maxBytes > mib<<20 {
			t.Errorf("the agent's batch.max_bytes %d is above the gateway's max_recv_msg_size_mib %d (%d bytes): its batches are refused for size", maxBytes, mib, mib<<20)
		}
	case "kafka":
		limit, ok := exp.get("producer", "max_message_bytes").(float64)
		if !ok {
			t.Fatal("the kafka exporter's producer.max_message_bytes: want it set")
		}
		if maxBytes > int64(limit) {
			t.Errorf("the agent's batch.max_bytes %d is above the kafka producer's max_message_bytes %d: its messages are refused for size", maxBytes, int64(limit))
		}
	default:
		t.Fatalf("exporter %s: this test knows otlp_grpc, load_balancing and kafka", id)
	}
}

// receiveLimit is the OTLP/gRPC receiver's max_recv_msg_size_mib, if set.
func receiveLimit(gw collectorConfig) (int64, bool) {
	v, ok := gw.get("receivers", "otlp", "protocols", "grpc", "max_recv_msg_size_mib").(float64)
	return int64(v), ok
}

// byteSize reads a byte size as the receiver does: a number of bytes, or one with a unit
// (B, KB, KiB, MB, MiB, GB, GiB).
func byteSize(v any) (int64, error) {
	switch v := v.(type) {
	case float64:
		return int64(v), nil
	case string:
		units := []struct {
			suffix string
			mult   int64
		}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}}
		for _, u := range units {
			if n, ok := strings.CutSuffix(v, u.suffix); ok {
				f, err := strconv.ParseFloat(strings.TrimSpace(n), 64)
				return int64(f * float64(u.mult)), err
			}
		}
		return strconv.ParseInt(v, 10, 64)
	}
	return 0, fmt.Errorf("%v: want it set, a number of bytes or a size such as 3MiB", v)
}
