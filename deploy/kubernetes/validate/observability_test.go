package validate

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/rulefmt"
	promql "github.com/prometheus/prometheus/promql/parser"
	"sigs.k8s.io/yaml"
)

// observabilityDir holds the Grafana dashboard and the Prometheus alert rules.
const observabilityDir = "../../observability"

// repoRoot is the distribution's module, whose components' metric tables the dashboard reads.
const repoRoot = "../../.."

// promNames are the series names a metric of a kind is served under by the collector's
// Prometheus endpoint (v0.165: the instrument's name as it is, without a unit or _total suffix;
// a histogram's buckets, sum and count). e2e/mtls_test.go scrapes a running agent for names of
// each kind.
func promNames(name, kind string) []string {
	if kind == "histogram" {
		return []string{name + "_bucket", name + "_sum", name + "_count"}
	}
	return []string{name}
}

// tableMetrics reads our components' metric tables (internal/metrictable's Table literals under
// receiver/ and processor/): every {Name: "otelcol_…", Kind: metrictable.…}, by series name.
func tableMetrics(t *testing.T) map[string]string {
	t.Helper()
	known := map[string]string{}
	for _, top := range []string{"receiver", "processor"} {
		err := filepath.WalkDir(filepath.Join(repoRoot, top), func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
			if err != nil {
				return err
			}
			ast.Inspect(f, func(n ast.Node) bool {
				lit, ok := n.(*ast.CompositeLit)
				if !ok {
					return true
				}
				var name, kind string
				for _, e := range lit.Elts {
					kv, ok := e.(*ast.KeyValueExpr)
					if !ok {
						continue
					}
					switch fmt.Sprint(kv.Key) {
					case "Name":
						if b, ok := kv.Value.(*ast.BasicLit); ok {
							name, _ = strconv.Unquote(b.Value)
						}
					case "Kind":
						if sel, ok := kv.Value.(*ast.SelectorExpr); ok && fmt.Sprint(sel.X) == "metrictable" {
							kind = strings.ToLower(sel.Sel.Name)
						}
					}
				}
				if strings.HasPrefix(name, "otelcol_") && kind != "" {
					for _, n := range promNames(name, kind) {
						known[n] = path
					}
				}
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(known) < 20 {
		t.Fatalf("found %d metrics in the components' tables: the table format changed?", len(known))
	}
	return known
}

// collectorMetrics reads the internal metrics of the collector's own modules the built
// distribution (OTELCOL_BIN) holds, from each module's metadata.yaml (telemetry.metrics) in the
// Go module cache, at the versions `go version -m` reports; it skips without OTELCOL_BIN.
func collectorMetrics(t *testing.T) map[string]string {
	t.Helper()
	bin := os.Getenv("OTELCOL_BIN")
	if bin == "" {
		t.Skip("OTELCOL_BIN is not set: run `make k8s`, which builds the collector whose modules name the collector's own metrics")
	}
	out, err := exec.Command("go", "version", "-m", bin).Output()
	if err != nil {
		t.Fatalf("go version -m %s: %v", bin, err)
	}
	cache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]string{}
	for line := range strings.SplitSeq(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || f[0] != "dep" || !strings.HasPrefix(f[1], "go.opentelemetry.io/collector") {
			continue
		}
		path := filepath.Join(strings.TrimSpace(string(cache)), f[1]+"@"+f[2], "metadata.yaml")
		data, err := os.ReadFile(path)
		if os.IsNotExist(err) {
			continue
		} else if err != nil {
			t.Fatal(err)
		}
		var meta struct {
			Telemetry struct {
				Metrics map[string]map[string]any `json:"metrics"`
			} `json:"telemetry"`
		}
		if err := yaml.Unmarshal(data, &meta); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for name, m := range meta.Telemetry.Metrics {
			kind := "sum"
			if _, ok := m["histogram"]; ok {
				kind = "histogram"
			}
			for _, n := range promNames("otelcol_"+name, kind) {
				known[n] = path
			}
		}
	}
	if known["otelcol_receiver_accepted_log_records"] == "" {
		t.Fatalf("no otelcol_receiver_accepted_log_records among the metadata.yaml of %s's modules: not found in the module cache?", bin)
	}
	return known
}

// dashboardExprs are the PromQL queries of the dashboard's panels and the metrics its variables
// query (label_values(<metric>, …)), by where they are.
func dashboardExprs(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(observabilityDir, "dashboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				RefID string `json:"refId"`
				Expr  string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
		Templating struct {
			List []struct {
				Name       string `json:"name"`
				Definition string `json:"definition"`
			} `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(data, &dash); err != nil {
		t.Fatalf("dashboard.json: %v", err)
	}
	exprs := map[string]string{}
	for _, p := range dash.Panels {
		for _, tg := range p.Targets {
			exprs[fmt.Sprintf("panel %q %s", p.Title, tg.RefID)] = tg.Expr
		}
	}
	labelValues := regexp.MustCompile(`^label_values\(([a-zA-Z_:][a-zA-Z0-9_:]*)\s*,`)
	for _, v := range dash.Templating.List {
		if m := labelValues.FindStringSubmatch(v.Definition); m != nil {
			exprs["variable "+v.Name] = m[1]
		}
	}
	if len(exprs) < 10 {
		t.Fatalf("dashboard.json: %d queries", len(exprs))
	}
	return exprs
}

// grafanaVars are Grafana's variables as the queries use them, and what stands for each when
// the query is parsed as PromQL.
var grafanaVars = strings.NewReplacer("$__rate_interval", "5m", "$__range", "6h", "$namespace", ".*")

// ruleGroups parses the PrometheusRule's groups as Prometheus parses a rule file (rulefmt, with
// its PromQL parser, unknown fields refused) and returns the rules' expressions by alert.
func ruleGroups(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(observabilityDir, "prometheusrule.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var obj struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Spec       struct {
			Groups []any `json:"groups"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(data, &obj); err != nil {
		t.Fatal(err)
	}
	if obj.APIVersion != "monitoring.coreos.com/v1" || obj.Kind != "PrometheusRule" {
		t.Errorf("prometheusrule.yaml: %s %s, want monitoring.coreos.com/v1 PrometheusRule", obj.APIVersion, obj.Kind)
	}
	file, err := yaml.Marshal(map[string]any{"groups": obj.Spec.Groups})
	if err != nil {
		t.Fatal(err)
	}
	groups, errs := rulefmt.Parse(file, false, model.UTF8Validation, promql.NewParser(promql.Options{}), slog.New(slog.NewTextHandler(io.Discard, nil)))
	for _, e := range errs {
		t.Errorf("prometheusrule.yaml: %v", e)
	}
	if groups == nil || len(groups.Groups) == 0 {
		t.Fatal("prometheusrule.yaml: no rule groups")
	}
	exprs := map[string]string{}
	for _, g := range groups.Groups {
		for _, r := range g.Rules {
			exprs["alert "+r.Alert] = r.Expr
			if sev := r.Labels["severity"]; sev != "critical" && sev != "warning" && sev != "info" {
				t.Errorf("alert %s: severity %q, want critical, warning or info", r.Alert, sev)
			}
			if r.Annotations["summary"] == "" || r.Annotations["description"] == "" {
				t.Errorf("alert %s: want a summary and a description", r.Alert)
			}
		}
	}
	return exprs
}

// metricNames are the metrics a PromQL expression selects (a bare metric name is one too).
func metricNames(expr string) ([]string, error) {
	e, err := promql.NewParser(promql.Options{}).ParseExpr(grafanaVars.Replace(expr))
	if err != nil {
		return nil, err
	}
	var names []string
	promql.Inspect(e, func(n promql.Node, _ []promql.Node) error {
		if vs, ok := n.(*promql.VectorSelector); ok {
			names = append(names, vs.Name)
		}
		return nil
	})
	return names, nil
}

// Every query of the dashboard and every alert parses as PromQL, selects metrics by name, and
// names only metrics that exist: ours in the components' metric tables, the collector's in its
// modules' metadata.yaml (the receiver, exporter and memory_limiter metrics the agents and
// gateways report). The alerts are a valid rule file, each with a severity and a text.
func TestDashboardAndAlertsNameRealMetrics(t *testing.T) {
	ours := tableMetrics(t)
	exprs := dashboardExprs(t)
	for k, v := range ruleGroups(t) {
		exprs[k] = v
	}
	collector := map[string]string{}
	t.Run("collector's metrics", func(t *testing.T) { collector = collectorMetrics(t) })
	for _, where := range sortedKeys(exprs) {
		names, err := metricNames(exprs[where])
		if err != nil {
			t.Errorf("%s: %q: %v", where, exprs[where], err)
			continue
		}
		if len(names) == 0 {
			t.Errorf("%s: %q selects no metric by name", where, exprs[where])
		}
		for _, n := range names {
			switch {
			case ours[n] != "":
			case strings.HasPrefix(n, "otelcol_receiver_mergelog_") || strings.HasPrefix(n, "otelcol_processor_mergelog_") || strings.HasPrefix(n, "otelcol_processor_logsgzip_"):
				t.Errorf("%s: %s is in none of our components' metric tables", where, n)
			case len(collector) > 0 && collector[n] == "":
				t.Errorf("%s: %s is not a metric of the collector's modules in %s", where, n, os.Getenv("OTELCOL_BIN"))
			}
		}
	}
}

// The check finds what it is meant to: a name with the _total suffix (which this collector's
// endpoint does not add), a misspelt one, and a query that does not parse.
func TestMetricCheckCatchesDefects(t *testing.T) {
	ours := tableMetrics(t)
	for _, n := range []string{"otelcol_receiver_mergelog_bytes_lost_total", "otelcol_receiver_mergelog_byte_lost", "otelcol_receiver_mergelog_merge_hold_duration"} {
		if ours[n] != "" {
			t.Errorf("%s: taken for a metric of the tables", n)
		}
	}
	if ours["otelcol_receiver_mergelog_bytes_lost"] == "" || ours["otelcol_processor_mergelog_hold_duration_bucket"] == "" {
		t.Error("the tables' metrics are not all found")
	}
	if _, err := metricNames("sum(rate(otelcol_receiver_mergelog_bytes_read[5m])"); err == nil {
		t.Error("an unbalanced query parsed")
	}
}
