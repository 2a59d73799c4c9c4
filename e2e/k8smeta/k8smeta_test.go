// Package k8smeta runs the built distribution with the pod-metadata component's config
// (deploy/kubernetes/components/k8s-metadata) against a fake Kubernetes API server on loopback:
// the records of pods whose log directories are on the node carry their pods' owners, labels
// and service.name. A module of its own, run by `make e2e`.
package k8smeta

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

const node = "node-e2e"

// testPod is a pod on the node: its API object and its log directory
// /var/log/pods/<namespace>_<name>_<uid>/<container>, and the attributes its records must get.
type testPod struct {
	namespace, name, uid, container string
	labels                          map[string]string
	ownerKind, ownerName            string
	want                            map[string]string
}

var (
	// A Deployment's pod (owner: its ReplicaSet), with the recommended labels: service.name is
	// app.kubernetes.io/instance's.
	checkout = testPod{
		namespace: "shop", name: "checkout-7d9f8b6c5-x2x9q", uid: "3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f", container: "app",
		labels: map[string]string{
			"app.kubernetes.io/name": "checkout", "app.kubernetes.io/instance": "checkout-eu",
			"app.kubernetes.io/part-of": "shop", "pod-template-hash": "7d9f8b6c5", "team": "payments",
		},
		ownerKind: "ReplicaSet", ownerName: "checkout-7d9f8b6c5",
		want: map[string]string{
			"k8s.deployment.name": "checkout", "k8s.replicaset.name": "checkout-7d9f8b6c5",
			"k8s.pod.label.app.kubernetes.io/name": "checkout", "k8s.pod.label.app.kubernetes.io/part-of": "shop",
			"service.name": "checkout-eu", "service.namespace": "shop", "service.version": "1.4.2",
			"service.instance.id": "shop.checkout-7d9f8b6c5-x2x9q.app", "container.image.name": "registry.example.com/app",
		},
	}
	// A StatefulSet's pod with app.kubernetes.io/name only: service.name is that label.
	web = testPod{
		namespace: "default", name: "web-0", uid: "9a8b7c6d-1e2f-4a3b-9c8d-7e6f5a4b3c2d", container: "nginx",
		labels:    map[string]string{"app.kubernetes.io/name": "web"},
		ownerKind: "StatefulSet", ownerName: "web",
		want: map[string]string{
			"k8s.statefulset.name": "web", "k8s.pod.label.app.kubernetes.io/name": "web", "service.name": "web",
		},
	}
	// A DaemonSet's pod without labels: service.name is the owner's name.
	exporter = testPod{
		namespace: "monitoring", name: "node-exporter-5k2lz", uid: "5b4a3c2d-6e7f-4a8b-9c0d-1e2f3a4b5c6d", container: "exporter",
		ownerKind: "DaemonSet", ownerName: "node-exporter",
		want: map[string]string{"k8s.daemonset.name": "node-exporter", "service.name": "node-exporter"},
	}
	// A CronJob's pod (owner: its Job), added after the agent started.
	report = testPod{
		namespace: "shop", name: "report-29100000-abcde", uid: "7c6b5a4d-3e2f-4a1b-8c9d-0e1f2a3b4c5d", container: "report",
		labels:    map[string]string{"app.kubernetes.io/name": "report", "batch.kubernetes.io/job-name": "report-29100000"},
		ownerKind: "Job", ownerName: "report-29100000",
		want: map[string]string{
			"k8s.job.name": "report-29100000", "k8s.pod.label.app.kubernetes.io/name": "report", "service.name": "report",
		},
	}
)

// object is the pod as the API server returns it; created is its creationTimestamp.
func (p testPod) object(created time.Time) fakeObject {
	labels := map[string]any{}
	for k, v := range p.labels {
		labels[k] = v
	}
	apiVersion := "apps/v1"
	if p.ownerKind == "Job" {
		apiVersion = "batch/v1"
	}
	return fakeObject{
		"kind": "Pod", "apiVersion": "v1",
		"metadata": map[string]any{
			"name": p.name, "namespace": p.namespace, "uid": p.uid, "labels": labels,
			"creationTimestamp": created.UTC().Format(time.RFC3339),
			"ownerReferences": []any{map[string]any{
				"apiVersion": apiVersion, "kind": p.ownerKind, "name": p.ownerName,
				"uid": "0000aaaa-" + p.uid[9:], "controller": true, "blockOwnerDeletion": true,
			}},
		},
		"spec": map[string]any{
			"nodeName":   node,
			"containers": []any{map[string]any{"name": p.container, "image": "registry.example.com/" + p.container + ":1.4.2"}},
		},
		"status": map[string]any{
			"phase": "Running", "podIP": "10.0.0.7", "startTime": created.UTC().Format(time.RFC3339),
			"containerStatuses": []any{map[string]any{
				"name": p.container, "ready": true, "restartCount": 0,
				"image": "registry.example.com/" + p.container + ":1.4.2", "imageID": "", "containerID": "containerd://" + strings.Repeat("ab", 32),
			}},
		},
	}
}

// writeLog writes lines to the pod's 0.log as containerd's CRI logger does, and returns them.
func (p testPod) writeLog(t *testing.T, root string, lines ...string) []string {
	t.Helper()
	dir := filepath.Join(root, "var", "log", "pods", p.namespace+"_"+p.name+"_"+p.uid, p.container)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(dir, "0.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, l := range lines {
		fmt.Fprintf(&b, "%s stdout F %s\n", time.Now().UTC().Format(time.RFC3339Nano), l)
	}
	_, err = f.WriteString(b.String())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

// node is a fake node: pods logging before the agent starts, the fake API server that knows
// them, and the agent (full build, the component's config) reading the node's logs.
type fakeNode struct {
	root, out string
	api       *fakeAPIServer
	agent     *collector
}

// startNode writes n lines of each pod, serves the pods (answers delayed by delay) and starts
// the agent; it returns the node and the lines by pod uid.
func startNode(t *testing.T, delay time.Duration, n int, pods ...testPod) (*fakeNode, map[string][]string) {
	t.Helper()
	nd := &fakeNode{root: t.TempDir()}
	nd.out = filepath.Join(nd.root, "out.jsonl")
	nd.api = newFakeAPIServer(t, node, delay, clusterRoleRules(t))
	written := map[string][]string{}
	for _, p := range pods {
		nd.api.addPod(p.object(time.Now().Add(-time.Hour)))
		for i := range n {
			written[p.uid] = append(written[p.uid], p.writeLog(t, nd.root, fmt.Sprintf("%s line %d read at start", p.name, i))...)
		}
	}
	// A pod on another node: the fieldSelector keeps it out of this agent's watch.
	other := exporter
	other.name, other.uid = "node-exporter-other", "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee"
	obj := other.object(time.Now())
	obj["spec"].(map[string]any)["nodeName"] = "node-other"
	nd.api.addPod(obj)

	env := []string{
		"K8S_NODE_NAME=" + node, "K8S_NAMESPACE=otelcol", "K8S_POD_IP=127.0.0.1",
		"KUBECONFIG=" + kubeconfig(t, nd.root, nd.api.srv.URL),
	}
	nd.agent = startCollector(t, env, agentConfig, componentConfig(t), override(t, nd.root, nd.out))
	return nd, written
}

// checkRecords checks that every line written for the pods came out once, with its pod's
// attributes.
func checkRecords(t *testing.T, recs []record, written map[string][]string, pods ...testPod) {
	t.Helper()
	byBody := map[string][]record{}
	for _, r := range recs {
		byBody[r.body] = append(byBody[r.body], r)
	}
	for _, p := range pods {
		for _, line := range written[p.uid] {
			got := byBody[line]
			if len(got) != 1 {
				t.Errorf("%q: delivered %d times, want once", line, len(got))
				continue
			}
			for k, v := range p.want {
				if got[0].resource[k] != v {
					t.Errorf("%q: resource %s = %q, want %q (resource %v)", line, k, got[0].resource[k], v, got[0].resource)
				}
			}
			if got[0].resource["k8s.pod.uid"] != p.uid {
				t.Errorf("%q: k8s.pod.uid %q, want %q", line, got[0].resource["k8s.pod.uid"], p.uid)
			}
		}
	}
}

// Records read at start carry their pods' owner, labels and service.name (the pipeline waited
// for the node's pods); a pod added after the start (a watch ADDED event) gets its metadata
// too; the agent asks for nothing its ClusterRole does not grant, and only for its node's pods.
func TestPodMetadata(t *testing.T) {
	nd, written := startNode(t, 0, 50, checkout, web, exporter)
	recs := waitRecords(t, nd.agent, nd.out, 150)
	checkRecords(t, recs, written, checkout, web, exporter)

	// The kubelet creates a container's log once the pod is bound to the node, which the API
	// server has told the watches by then: the agent's watch gets the ADDED event, then the
	// container logs. Lines are written until one comes out with the pod's metadata (the
	// event is handled by the processor asynchronously); every later one must have it.
	nd.api.addPod(report.object(time.Now()))
	deadline := time.Now().Add(2 * time.Minute)
	for i := 0; ; i++ {
		line := report.writeLog(t, nd.root, fmt.Sprintf("%s line %d added after start", report.name, i))
		recs = waitRecords(t, nd.agent, nd.out, len(recs)+1)
		r := recs[slices.IndexFunc(recs, func(r record) bool { return r.body == line[0] })]
		if r.resource["service.name"] == report.want["service.name"] {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the added pod's records carry no metadata after 2 minutes (resource %v); output:\n%s", r.resource, nd.agent.out.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
	later := report.writeLog(t, nd.root, "report line after", "report line last")
	recs = waitRecords(t, nd.agent, nd.out, len(recs)+len(later))
	checkRecords(t, recs, map[string][]string{report.uid: later}, report)

	asked, urls := nd.api.requests()
	for _, req := range asked {
		if !strings.HasSuffix(req, " pods") {
			t.Errorf("the agent asked %q: want pods only", req)
		}
	}
	t.Logf("the agent's requests: %v", urls)
}

// With an API server that answers every request a second late, records read at start still
// carry their metadata: the pipeline starts only once the pods are listed.
func TestPodMetadataSlowAPIServer(t *testing.T) {
	nd, written := startNode(t, time.Second, 20, checkout, web, exporter)
	recs := waitRecords(t, nd.agent, nd.out, 60)
	checkRecords(t, recs, written, checkout, web, exporter)
}

// With no API server answering, the agent does not run without metadata: its health_check
// never answers 200 (so the DaemonSet's startupProbe fails and the kubelet restarts the pod)
// and it sends nothing; the files wait on the node. Past wait_for_metadata_timeout (5 s here)
// the processor's Start fails, but reporting its fatal status blocks the collector's start
// (collector issue 8116: the status channel is read only once Start returned), so the
// collector neither runs nor exits: the startupProbe is what restarts it. Should a later
// version exit instead, the test passes too, and says so.
func TestPodMetadataNoAPIServer(t *testing.T) {
	root := t.TempDir()
	out := filepath.Join(root, "out.jsonl")
	checkout.writeLog(t, root, "a line that must not leave without its metadata")
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		writeStatus(w, http.StatusServiceUnavailable, "ServiceUnavailable", "the fake API server is down")
	}))
	t.Cleanup(down.Close)
	health := freePort(t)
	extra := filepath.Join(root, "timeout.yaml")
	text := fmt.Sprintf("processors:\n  k8s_attributes:\n    wait_for_metadata_timeout: 5s\nextensions:\n  health_check:\n    endpoint: %s\n", health)
	if err := os.WriteFile(extra, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"K8S_NODE_NAME=" + node, "K8S_NAMESPACE=otelcol", "K8S_POD_IP=127.0.0.1", "KUBECONFIG=" + kubeconfig(t, root, down.URL)}
	c := startCollector(t, env, agentConfig, componentConfig(t), override(t, root, out), extra)

	// Three times the timeout: however slow the machine, the timeout has passed at the end.
	healthy := false
	for end := time.Now().Add(15 * time.Second); time.Now().Before(end) && !healthy; {
		select {
		case <-c.exited:
			end = time.Now()
		case <-time.After(250 * time.Millisecond):
		}
		if resp, err := http.Get("http://" + health + "/"); err == nil {
			healthy = resp.StatusCode == http.StatusOK
			_ = resp.Body.Close()
		}
	}
	if healthy {
		t.Error("health_check answered 200 without an API server: the startupProbe would pass")
	}
	if recs := readRecords(t, out); len(recs) != 0 {
		t.Errorf("%d records left without metadata", len(recs))
	}
	select {
	case <-c.exited:
		if c.cmd.ProcessState.Success() {
			t.Errorf("the collector exited with success; want a failure (the pod restarts); output:\n%s", c.out.String())
		}
		t.Logf("the collector exited (%v)", c.cmd.ProcessState)
	default:
		t.Log("the collector neither runs its pipeline nor exits (collector issue 8116): the startupProbe restarts the pod")
		_ = c.cmd.Process.Kill()
		<-c.exited
	}
}

// freePort returns a loopback address no one listens on (the kernel's choice, released).
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}
