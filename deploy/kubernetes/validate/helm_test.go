package validate

import (
	"bytes"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// chartDir is our chart, deploy/helm/otelcol-mergelog.
const chartDir = "../../helm/otelcol-mergelog"

// The release and namespace the chart is rendered as: with these, its objects are named as
// the kustomize base's.
const (
	release   = "otelcol"
	namespace = "otelcol"
)

// helmBin is the helm binary `make k8s` builds into _build/tools (HELM_BIN); tests that run
// helm skip without it.
func helmBin(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("HELM_BIN")
	if bin == "" {
		t.Skip("HELM_BIN is not set: run `make k8s` (part of `make test`), which builds helm")
	}
	return bin
}

// runHelm runs helm and returns its standard output, and its error output with the error if
// it failed.
func runHelm(t *testing.T, args ...string) ([]byte, string, error) {
	t.Helper()
	cmd := exec.Command(helmBin(t), args...)
	// No repositories, plugins or cache of the user's: only the chart on disk.
	home := t.TempDir()
	cmd.Env = append(os.Environ(), "HELM_CONFIG_HOME="+home, "HELM_CACHE_HOME="+home, "HELM_DATA_HOME="+home)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.Bytes(), stderr.String(), err
}

// helmTemplate is `helm template` of a chart as release in namespace, with more arguments
// (--set, -f); a failure fails the test.
func helmTemplate(t *testing.T, chart string, args ...string) [][]byte {
	t.Helper()
	out, stderr, err := runHelm(t, slices.Concat([]string{"template", release, chart, "--namespace", namespace}, args)...)
	if err != nil {
		t.Fatalf("helm template %s %v: %v\n%s", chart, args, err, stderr)
	}
	docs, err := splitDocuments(out)
	if err != nil {
		t.Fatalf("helm template %s %v: %v", chart, args, err)
	}
	return docs
}

// renderChart renders our chart with the values arguments and decodes every object strictly.
func renderChart(t *testing.T, args ...string) *rendered {
	t.Helper()
	return decodeRendered(t, helmTemplate(t, chartDir, args...))
}

// sets turns "key=value" pairs into helm's --set arguments.
func sets(pairs ...string) []string {
	var args []string
	for _, p := range pairs {
		args = append(args, "--set", p)
	}
	return args
}

// chartVariants are the chart's values that render the kustomize base and components (by
// name, the overlay's components and the --set arguments).
var chartVariants = []chartVariant{
	{"base", nil, nil},
	{"merge", []string{mergeComponent}, []string{"merge.enabled=true"}},
	{"merge+kafka", []string{mergeComponent, kafkaComponent}, []string{"merge.enabled=true", "kafka.enabled=true"}},
	{"k8s-metadata", []string{k8sMetaComponent}, []string{"k8sMetadata.enabled=true"}},
	{"merge+k8s-metadata", []string{mergeComponent, k8sMetaComponent}, []string{"merge.enabled=true", "k8sMetadata.enabled=true"}},
	{"otlp-http", []string{otlpHTTPComponent}, []string{"networkPolicy.otlpHttp.enabled=true"}},
	{"mtls", []string{mtlsComponent}, []string{"mtls.enabled=true"}},
	{"merge+mtls", []string{mergeComponent, mtlsComponent, mtlsMergeComponent}, []string{"merge.enabled=true", "mtls.enabled=true"}},
	{"gateway-namespace", []string{gatewayNSComponent}, []string{"gateway.namespace=" + gatewayNamespace}},
	{"merge+gateway-namespace", []string{mergeComponent, gatewayNSComponent, gatewayNSMergeComponent}, []string{"merge.enabled=true", "gateway.namespace=" + gatewayNamespace}},
}

type chartVariant struct {
	name       string
	components []string
	set        []string
}

// `helm lint --strict` passes on the chart with its defaults and with each option on.
func TestChartLint(t *testing.T) {
	helmBin(t)
	for _, v := range chartVariants {
		t.Run(v.name, func(t *testing.T) {
			out, stderr, err := runHelm(t, slices.Concat([]string{"lint", "--strict", chartDir}, sets(v.set...))...)
			if err != nil {
				t.Errorf("helm lint --strict: %v\n%s%s", err, out, stderr)
			}
		})
	}
}

// Every collector config the chart renders passes `otelcol-mergelog validate`: with its
// defaults, with merge and Kafka, and with the values a user sets (testdata/chart-user.yaml:
// a backend in place of the placeholder, more excluded pods, a config merged over the
// agent's), alone and with merge.
func TestChartConfigsValidate(t *testing.T) {
	helmBin(t)
	variants := map[string][]string{
		"user values":       {"-f", "testdata/chart-user.yaml"},
		"user values+merge": slices.Concat([]string{"-f", "testdata/chart-user.yaml"}, mergingUserValues),
		// No kustomize build to compare with: the components' agent configs both set the
		// pipeline's processors (README of components/k8s-metadata).
		"merge+kafka+k8s-metadata": sets("merge.enabled=true", "kafka.enabled=true", "k8sMetadata.enabled=true"),
	}
	for _, v := range chartVariants {
		variants[v.name] = sets(v.set...)
	}
	for _, name := range sortedKeys(variants) {
		t.Run(name, func(t *testing.T) { validateConfigs(t, renderChart(t, variants[name]...)) })
	}
}

// mergingUserValues are testdata/chart-user.yaml's additions for merging agents: the
// load_balancing exporter they use instead (in the full image only) set in agent.extraConfig.
var mergingUserValues = sets("merge.enabled=true", "agent.extraConfig.exporters.load_balancing.protocol.otlp.compression=zstd")

// A user's values reach the configs: the backend replaces the placeholder (Helm drops a key set
// to null), the merging gateway keeps the order with it, and the agent reads the extra config
// last and skips the extra globs.
func TestChartUserValues(t *testing.T) {
	helmBin(t)
	r := renderChart(t, slices.Concat([]string{"-f", "testdata/chart-user.yaml"}, mergingUserValues)...)
	checkGatewayStatefulSet(t, r)
	checkGatewayPipeline(t, r)
	gw, _ := r.configOf(t, r.statefulSets[0].Spec.Template.Spec)
	if got := gw.list("service", "pipelines", "logs", "exporters"); !slices.Equal(got, []string{"otlp_grpc/backend"}) {
		t.Errorf("the gateway's logs exporters %v, want [otlp_grpc/backend] (debug set to null)", got)
	}
	if gw.get("exporters", "debug") != nil {
		t.Error("exporters.debug is still in the gateway's config: null should drop it")
	}
	agentPod := r.daemonSets[0].Spec.Template.Spec
	agent, texts := r.configOf(t, agentPod)
	if args := agentPod.Containers[0].Args; len(args) == 0 || args[len(args)-1] != "--config=/etc/otelcol/extra.yaml" {
		t.Errorf("agent args %v: want agent.extraConfig read last", args)
	}
	if len(texts) != 3 {
		t.Errorf("the agent reads %d configs, want config.yaml, merge.yaml, extra.yaml", len(texts))
	}
	if got := agent.str("exporters", "load_balancing", "protocol", "otlp", "compression"); got != "zstd" {
		t.Errorf("load_balancing compression %q, want extraConfig's zstd over merge.yaml's snappy", got)
	}
	if exclude := agent.list("receivers", "mergelog", "exclude"); !slices.Contains(exclude, "/var/log/pods/kube-system_*/*/*") || len(exclude) != 3 {
		t.Errorf("exclude %v: want the collectors' own pods and agent.exclude", exclude)
	}
}

// Each image is the chart's appVersion by default, a tag, or a digest (which wins over a tag):
// the agents run the agent's build, or with merge.enabled the full distribution, as the
// gateways do.
func TestChartImage(t *testing.T) {
	helmBin(t)
	const full, agent = "ghcr.io/mergelog/otelcol-mergelog", "ghcr.io/mergelog/otelcol-mergelog-agent"
	d1, d2 := "sha256:"+strings.Repeat("0123456789abcdef", 4), "sha256:"+strings.Repeat("fedcba9876543210", 4)
	chart, err := os.ReadFile(chartDir + "/Chart.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		AppVersion string `json:"appVersion"`
	}
	if err := yaml.Unmarshal(chart, &meta); err != nil || meta.AppVersion == "" {
		t.Fatalf("Chart.yaml appVersion: %q, %v", meta.AppVersion, err)
	}
	for _, tc := range []struct {
		set               []string
		wantAgent, wantGW string
	}{
		{nil, agent + ":" + meta.AppVersion, full + ":" + meta.AppVersion},
		{[]string{"image.tag=0.2.0", "agent.image.tag=0.3.0"}, agent + ":0.3.0", full + ":0.2.0"},
		{[]string{"image.tag=0.2.0", "image.digest=" + d1, "agent.image.digest=" + d2}, agent + "@" + d2, full + "@" + d1},
		{[]string{"image.repository=registry.example.com/otelcol-mergelog", "image.digest=" + d1, "agent.image.digest=" + d2, "merge.enabled=true"},
			"registry.example.com/otelcol-mergelog@" + d1, "registry.example.com/otelcol-mergelog@" + d1},
	} {
		t.Run(strings.Join(tc.set, ","), func(t *testing.T) {
			r := renderChart(t, sets(tc.set...)...)
			if got := r.daemonSets[0].Spec.Template.Spec.Containers[0].Image; got != tc.wantAgent {
				t.Errorf("the agent's image %s, want %s", got, tc.wantAgent)
			}
			var images []string
			for _, g := range r.deployments {
				images = append(images, g.Spec.Template.Spec.Containers[0].Image)
			}
			for _, g := range r.statefulSets {
				images = append(images, g.Spec.Template.Spec.Containers[0].Image)
			}
			if !slices.Equal(images, []string{tc.wantGW}) {
				t.Errorf("the gateway's image %v, want %s", images, tc.wantGW)
			}
		})
	}
}

// values.schema.json turns away values that would render a broken deployment, with a message
// that names the value.
func TestChartSchemaRejects(t *testing.T) {
	helmBin(t)
	for _, tc := range []struct {
		set     []string
		mention string
	}{
		{[]string{"kafka.enabled=true"}, "merge"},
		{[]string{"mtls.enabled=true", "merge.enabled=true", "kafka.enabled=true"}, "kafka"},
		{[]string{"image.digest=latest"}, "digest"},
		{[]string{"gateway.replica=3"}, "replica"},
		{[]string{"agent.goMemLimit=400MB"}, "goMemLimit"},
		{[]string{"gateway.exporters=null"}, "exporters"},
		{[]string{"merge.key=null"}, "key"},
	} {
		t.Run(strings.Join(tc.set, ","), func(t *testing.T) {
			_, stderr, err := runHelm(t, slices.Concat([]string{"template", release, chartDir}, sets(tc.set...))...)
			if err == nil {
				t.Fatal("rendered without error")
			}
			if !strings.Contains(stderr, tc.mention) {
				t.Errorf("error does not mention %q:\n%s", tc.mention, stderr)
			}
		})
	}
}

// Another release name renames every object, and every reference follows: the agents' exporter,
// the collectors' own pods they skip, the headless Service they resolve, the Kafka group.
func TestChartReleaseName(t *testing.T) {
	out, stderr, err := runHelm(t, "template", "logs", chartDir, "--namespace", "obs",
		"--set", "merge.enabled=true", "--set", "kafka.enabled=true")
	if err != nil {
		t.Fatalf("helm template: %v\n%s", err, stderr)
	}
	docs, err := splitDocuments(out)
	if err != nil {
		t.Fatal(err)
	}
	r := decodeRendered(t, docs)
	for name := range r.services {
		if !strings.HasPrefix(name, "logs-gateway") {
			t.Errorf("Service %s: want it named after the release", name)
		}
	}
	sts, ds := r.statefulSets[0], r.daemonSets[0]
	if sts.Name != "logs-gateway" || ds.Name != "logs-agent" || sts.Spec.ServiceName != "logs-gateway-headless" {
		t.Errorf("StatefulSet %s (serviceName %s), DaemonSet %s: want logs-gateway (logs-gateway-headless), logs-agent", sts.Name, sts.Spec.ServiceName, ds.Name)
	}
	agent, _ := r.configOf(t, ds.Spec.Template.Spec)
	gw, _ := r.configOf(t, sts.Spec.Template.Spec)
	exclude := agent.list("receivers", "mergelog", "exclude")
	for _, own := range []string{"/var/log/pods/${env:K8S_NAMESPACE}_logs-agent-*/*/*", "/var/log/pods/${env:K8S_NAMESPACE}_logs-gateway-*/*/*"} {
		if !slices.Contains(exclude, own) {
			t.Errorf("exclude %v: want %s", exclude, own)
		}
	}
	if got := gw.str("receivers", "kafka", "group_id"); got != "logs-gateway" {
		t.Errorf("group_id %q, want logs-gateway", got)
	}
	base := collectorConfig{}
	if err := yaml.Unmarshal([]byte(r.configMaps["logs-agent"].Data["config.yaml"]), &base); err != nil {
		t.Fatal(err)
	}
	if got := base.str("exporters", "otlp_grpc", "endpoint"); got != "logs-gateway:4317" {
		t.Errorf("the agent's otlp_grpc endpoint %q, want logs-gateway:4317", got)
	}
	merge := collectorConfig{}
	if err := yaml.Unmarshal([]byte(r.configMaps["logs-agent"].Data["merge.yaml"]), &merge); err != nil {
		t.Fatal(err)
	}
	if got := merge.str("exporters", "load_balancing", "resolver", "dns", "hostname"); got != "logs-gateway-headless" {
		t.Errorf("load_balancing resolves %q, want logs-gateway-headless", got)
	}
}
