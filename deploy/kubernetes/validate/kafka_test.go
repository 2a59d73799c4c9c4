package validate

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// kafkaComponent is the kustomize component that puts Kafka between the merge component's
// agents and gateways; it is used after components/merge.
const kafkaComponent = "components/kafka"

// keepKeys finds the list of a keep_keys(resource.attributes, [...]) statement.
var keepKeys = regexp.MustCompile(`^keep_keys\(resource\.attributes, \[(.*)\]\)$`)

// resourceKept returns the resource attributes a transform processor's statements keep, and
// whether it has such a statement.
func resourceKept(proc collectorConfig) ([]string, bool) {
	groups, _ := proc.get("log_statements").([]any)
	for _, g := range groups {
		group, _ := g.(map[string]any)
		if group["context"] != "resource" {
			continue
		}
		statements, _ := group["statements"].([]any)
		for _, st := range statements {
			s, _ := st.(string)
			if m := keepKeys.FindStringSubmatch(s); m != nil {
				var keys []string
				for k := range strings.SplitSeq(m[1], ",") {
					keys = append(keys, strings.Trim(strings.TrimSpace(k), `"`))
				}
				return keys, true
			}
		}
	}
	return nil, false
}

// The agents produce each merge stream into one partition: the exporter keys messages by the
// resource's attributes, and the last processor before it reduces the resource to the
// gateway's merge_key; the exporter writes the topic the gateways read, on the same brokers,
// acknowledged by every in-sync replica, with no queue and endless retries; the receiver's
// merge stays on.
func TestKafkaAgentKeysByMergeKey(t *testing.T) {
	_, agent, gw, exp := mergingAgent(t, "kafka", mergeComponent, kafkaComponent)
	if on, _ := exp.get("partition_logs_by_resource_attributes").(bool); !on {
		t.Error("want partition_logs_by_resource_attributes: true (the message key picks the partition)")
	}
	procs := agent.list("service", "pipelines", "logs", "processors")
	if len(procs) == 0 || componentType(procs[len(procs)-1]) != "transform" {
		t.Fatalf("logs processors %v: want a transform last, reducing the resource that keys the partition", procs)
	}
	kept, ok := resourceKept(collectorConfig(agent.get("processors", procs[len(procs)-1]).(map[string]any)))
	if want := gw.list("processors", "mergelog", "merge_key"); !ok || !slices.Equal(kept, want) {
		t.Errorf("%s keeps resource attributes %v, want the gateway's merge_key %v", procs[len(procs)-1], kept, want)
	}
	if got, want := exp.str("logs", "topic"), gw.list("receivers", "kafka", "logs", "topics"); !slices.Equal([]string{got}, want) {
		t.Errorf("the agents write topic %q, the gateways read %v", got, want)
	}
	if got, want := exp.list("brokers"), gw.list("receivers", "kafka", "brokers"); !slices.Equal(got, want) {
		t.Errorf("the agents' brokers %v, the gateways' %v", got, want)
	}
	if acks, _ := exp.get("producer", "required_acks").(float64); acks != -1 {
		t.Errorf("producer.required_acks %v, want -1: the receiver checkpoints what the brokers acknowledged", exp.get("producer", "required_acks"))
	}
	checkNoQueueRetryForever(t, exp, "the brokers acknowledged")
}

// The gateways consume in one group, from the topic's start for a new group, marking offsets
// only after ConsumeLogs returned (the processor has stored the records), retrying refusals;
// the first processor puts back what the agents moved out of the resource, before the merge.
func TestKafkaGatewayConsumesInOneGroup(t *testing.T) {
	r := render(t, overlay(t, mergeComponent, kafkaComponent))
	gw, _ := r.configOf(t, r.statefulSets[0].Spec.Template.Spec)
	recv := gw.list("service", "pipelines", "logs", "receivers")
	if !slices.Equal(recv, []string{"kafka"}) {
		t.Fatalf("the gateway's logs receivers %v, want [kafka]", recv)
	}
	kafka := collectorConfig(gw.get("receivers", "kafka").(map[string]any))
	if kafka.str("group_id") == "" {
		t.Error("want a group_id: every gateway pod is a member of one consumer group")
	}
	if got := kafka.str("initial_offset"); got != "earliest" {
		t.Errorf("initial_offset %q, want earliest: what was produced before the group existed is merged too", got)
	}
	if after, _ := kafka.get("message_marking", "after").(bool); !after {
		t.Error("want message_marking.after: true: offsets marked once ConsumeLogs returned")
	}
	if onErr, _ := kafka.get("message_marking", "on_error").(bool); onErr {
		t.Error("want message_marking.on_error: false: a refused message is not marked")
	}
	if on, _ := kafka.get("error_backoff", "enabled").(bool); !on {
		t.Error("want error_backoff enabled: a refused message is retried")
	}
	procs := gw.list("service", "pipelines", "logs", "processors")
	if len(procs) == 0 || componentType(procs[0]) != "transform" {
		t.Fatalf("logs processors %v: want a transform first, restoring the resource", procs)
	}
	if statements := gw.get("processors", procs[0], "log_statements"); !strings.Contains(strings.ReplaceAll(fmt.Sprint(statements), " ", ""), `merge_maps(resource.attributes,scope.attributes["mergelog.resource"]`) {
		t.Errorf("%s: want merge_maps of scope.attributes[\"mergelog.resource\"] into the resource, got %v", procs[0], statements)
	}
}
