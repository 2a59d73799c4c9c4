package validate

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/yaml"
)

// officialValues are our values for the official OpenTelemetry Collector chart.
const officialValues = "../../helm/opentelemetry-collector/agent-values.yaml"

// thirdParty is a folder of shared/third_party (unmodified copies of other projects' files):
// THIRD_PARTY_DIR, or ../shared/third_party beside the project. A user's clone has none: the
// test is skipped, saying so.
func thirdParty(t *testing.T, name string) string {
	t.Helper()
	root := os.Getenv("THIRD_PARTY_DIR")
	if root == "" {
		root = "../../../../shared/third_party"
	}
	p := filepath.Join(root, name)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s is absent (%v): this test needs the third-party copies beside the project (../shared/third_party, or THIRD_PARTY_DIR)", p, err)
	}
	return p
}

// renderOfficialChart renders the official chart with values files.
func renderOfficialChart(t *testing.T, values ...string) *rendered {
	t.Helper()
	helmBin(t)
	chart := thirdParty(t, "opentelemetry-collector-chart")
	var args []string
	for _, v := range values {
		args = append(args, "-f", v)
	}
	return decodeRendered(t, helmTemplate(t, chart, args...))
}

// The official chart with our values runs our agent as the kustomize base's DaemonSet does:
// our image and binary, our agent config value for value (the chart's defaults removed), the
// same host paths mounted the same way, the same security contexts, resources, tolerations and
// environment, no host ports and no Service, no token; and `helm lint --strict` passes.
func TestOfficialChartRunsOurAgent(t *testing.T) {
	r := renderOfficialChart(t, officialValues)
	if len(r.daemonSets) != 1 || len(r.deployments)+len(r.statefulSets)+len(r.services) != 0 {
		t.Fatalf("want one DaemonSet and nothing else that runs or listens, got %d DaemonSets, %d Deployments, %d StatefulSets, %d Services",
			len(r.daemonSets), len(r.deployments), len(r.statefulSets), len(r.services))
	}
	d := load(t)
	ours := d.agent(t)
	pod := r.daemonSets[0].Spec.Template.Spec
	got := pod.Containers[0]

	cfg, _ := r.configOf(t, pod)
	for _, diff := range valueDiff("", map[string]any(parseConfig(t, d.configFile(t, ours))), map[string]any(cfg)) {
		t.Errorf("config: %s", diff)
	}
	if want := dockerEntrypoint(t, "agent"); !slices.Equal(got.Command, want) {
		t.Errorf("command %v, want the agent image's entrypoint %v (the Dockerfile)", got.Command, want)
	}
	checkRunsLikeOurAgent(t, ours, pod)
	if !equality.Semantic.DeepEqual(ours.pod.Spec.AutomountServiceAccountToken, pod.AutomountServiceAccountToken) {
		t.Errorf("automountServiceAccountToken %v, want ours: %v", pod.AutomountServiceAccountToken, ours.pod.Spec.AutomountServiceAccountToken)
	}
	for _, p := range got.Ports {
		if p.HostPort != 0 {
			t.Errorf("port %s: hostPort %d; the agent receives nothing", p.Name, p.HostPort)
		}
	}
	health := port(t, cfg.str("extensions", "health_check", "endpoint"))
	for name, probe := range map[string]*corev1.Probe{"liveness": got.LivenessProbe, "readiness": got.ReadinessProbe} {
		if probe == nil || probe.HTTPGet == nil || probe.HTTPGet.Port.String() != health {
			t.Errorf("%s probe %+v: want an HTTP GET on health_check's port %s", name, probe, health)
		}
	}

	if out, stderr, err := runHelm(t, "lint", "--strict", thirdParty(t, "opentelemetry-collector-chart"), "-f", officialValues); err != nil {
		t.Errorf("helm lint --strict: %v\n%s%s", err, out, stderr)
	}
}

// dockerEntrypoint is the ENTRYPOINT of a stage of the project's Dockerfile (FROM … AS stage).
func dockerEntrypoint(t *testing.T, stage string) []string {
	t.Helper()
	data, err := os.ReadFile("../../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	in := false
	for line := range strings.Lines(string(data)) {
		fields := strings.Fields(line)
		switch {
		case len(fields) > 0 && fields[0] == "FROM":
			in = len(fields) == 4 && strings.EqualFold(fields[2], "AS") && fields[3] == stage
		case in && len(fields) > 0 && fields[0] == "ENTRYPOINT":
			var entrypoint []string
			if err := yaml.Unmarshal([]byte(strings.TrimPrefix(strings.TrimSpace(line), "ENTRYPOINT")), &entrypoint); err != nil {
				t.Fatalf("Dockerfile: %s: want the exec form, %v", strings.TrimSpace(line), err)
			}
			return entrypoint
		}
	}
	t.Fatalf("Dockerfile: no ENTRYPOINT in a stage %s", stage)
	return nil
}

// checkRunsLikeOurAgent checks that a pod another installer makes runs the kustomize agent's
// container: its image, security contexts, resources, tolerations, host paths mounted the same
// way, and every variable of its environment.
func checkRunsLikeOurAgent(t *testing.T, ours workload, pod corev1.PodSpec) {
	t.Helper()
	want, got := ours.container(t), pod.Containers[0]
	for _, tc := range []struct {
		what      string
		want, got any
	}{
		{"image", want.Image, got.Image},
		{"container securityContext", want.SecurityContext, got.SecurityContext},
		{"pod securityContext", ours.pod.Spec.SecurityContext, pod.SecurityContext},
		{"resources", want.Resources, got.Resources},
		{"tolerations", ours.pod.Spec.Tolerations, pod.Tolerations},
		{"host path volumes", hostPathVolumes(ours.pod.Spec), hostPathVolumes(pod)},
	} {
		if !equality.Semantic.DeepEqual(tc.want, tc.got) {
			t.Errorf("%s: %+v, want ours: %+v", tc.what, tc.got, tc.want)
		}
	}
	for _, e := range want.Env {
		i := slices.IndexFunc(got.Env, func(g corev1.EnvVar) bool { return g.Name == e.Name })
		if i < 0 || !equality.Semantic.DeepEqual(e, got.Env[i]) {
			t.Errorf("env %s: want it as ours, %+v", e.Name, e)
		}
	}
}

// hostPathVolume is a hostPath volume as the container sees it (exported fields, which
// equality.Semantic compares).
type hostPathVolume struct {
	Path, MountPath string
	Type            corev1.HostPathType
	ReadOnly        bool
}

// hostPathVolumes are the pod's hostPath volumes and where its first container mounts them.
func hostPathVolumes(pod corev1.PodSpec) []hostPathVolume {
	var vols []hostPathVolume
	for _, v := range pod.Volumes {
		if v.HostPath == nil {
			continue
		}
		hv := hostPathVolume{Path: v.HostPath.Path}
		if v.HostPath.Type != nil {
			hv.Type = *v.HostPath.Type
		}
		for _, m := range pod.Containers[0].VolumeMounts {
			if m.Name == v.Name {
				hv.MountPath, hv.ReadOnly = m.MountPath, m.ReadOnly
			}
		}
		vols = append(vols, hv)
	}
	slices.SortFunc(vols, func(a, b hostPathVolume) int { return strings.Compare(a.Path, b.Path) })
	return vols
}

// The rendered config passes `otelcol-mergelog validate` with the pod's environment; without
// the values that remove one of the chart's default receivers, it does not (Helm merges our
// config into the chart's, and that receiver is not in our distribution).
func TestOfficialChartConfigValidates(t *testing.T) {
	t.Run("our values", func(t *testing.T) { validateConfigs(t, renderOfficialChart(t, officialValues)) })
	t.Run("jaeger not removed", func(t *testing.T) {
		data, err := os.ReadFile(officialValues)
		if err != nil {
			t.Fatal(err)
		}
		var values map[string]any
		if err := yaml.Unmarshal(data, &values); err != nil {
			t.Fatal(err)
		}
		delete(collectorConfig(values).get("config", "receivers").(map[string]any), "jaeger")
		text, err := yaml.Marshal(values)
		if err != nil {
			t.Fatal(err)
		}
		r := renderOfficialChart(t, writeTemp(t, "values.yaml", string(text)))
		pod := r.daemonSets[0].Spec.Template.Spec
		_, texts := r.configOf(t, pod)
		out, err := runValidate(t, collectorFor(t, pod.Containers[0].Image), texts, podEnv(t, pod.Containers[0], namespace))
		if err == nil || !strings.Contains(string(out), "jaeger") {
			t.Errorf("validate: %v, want it to refuse the chart's jaeger receiver:\n%s", err, out)
		}
	})
}
