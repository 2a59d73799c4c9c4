package main

import (
	"os"
	"strings"
	"testing"
)

// agentComponents is what the agent's build prints for `components` (its shape; the
// providers and build info are not components).
const agentComponents = `buildinfo:
    command: otelcol-mergelog-agent
    version: 0.1.0
receivers:
    - name: mergelog
      module: github.com/mergelog/otelcol-mergelog v0.0.0
processors:
    - name: memory_limiter
      module: go.opentelemetry.io/collector/processor/memorylimiterprocessor v0.165.0
exporters:
    - name: debug
    - name: otlp_grpc
    - name: otlp_http
connectors: []
extensions:
    - name: file_storage
    - name: health_check
    - name: pageout
providers:
    - scheme: env
    - scheme: file
`

func TestParseComponents(t *testing.T) {
	has, err := parseComponents([]byte(agentComponents))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"receivers/mergelog", "processors/memory_limiter", "exporters/otlp_http", "extensions/pageout"} {
		if !has[c] {
			t.Errorf("%s missing from %v", c, has)
		}
	}
	if len(has) != 8 {
		t.Errorf("want the 8 components, got %v", has)
	}
	if _, err := parseComponents([]byte("buildinfo: {}\n")); err == nil {
		t.Error("no components: want an error")
	}
}

func TestChooseBuild(t *testing.T) {
	shipped, err := os.ReadFile("../../../deploy/kubernetes/agent-config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	has, err := parseComponents([]byte(agentComponents))
	if err != nil {
		t.Fatal(err)
	}
	bs := builds{full: "full-bin", agent: "agent-bin", fluentBit: "fb-bin", agentHas: has}
	batch := variant{name: "batch", overrides: []string{"processors:\n  batch: {}\n"}}
	byName := map[string]variant{"batch": batch}
	for _, v := range variants {
		byName[v.name] = v
	}
	pods := workload{name: "pods", root: "/tree/pods"}
	plain := workload{name: "plain", root: "/tree/plain"}
	for _, c := range []struct {
		variant string
		wl      workload
		want    build
	}{
		{"shipped", pods, build{"agent", "agent-bin"}},
		{"shipped", plain, build{"agent", "agent-bin"}}, // the workload's file_log left out
		{"detect-off", pods, build{"agent", "agent-bin"}},
		{"preset", pods, build{"full", "full-bin"}},
		{"preset-rx", plain, build{"full", "full-bin"}},
		{"preset-renamed", pods, build{"full", "full-bin"}}, // batch
		{"batch", pods, build{"full", "full-bin"}},
		{"fluent-bit", pods, build{"fluent-bit", "fb-bin"}},
	} {
		v := byName[c.variant]
		var docs []string
		if !v.fluentBit {
			if docs, err = configDocs(string(shipped), v, c.wl); err != nil {
				t.Fatal(err)
			}
		}
		got, err := bs.choose(v, docs)
		if err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("%s on %s: got %v, want %v", c.variant, c.wl.name, got, c.want)
		}
	}
	noAgent := builds{full: "full-bin"}
	if got, _ := noAgent.choose(byName["shipped"], []string{string(shipped)}); got != (build{"full", "full-bin"}) {
		t.Errorf("without an agent build: got %v", got)
	}
}

func TestConfigDocsKeepOnlyTheVariantsReceivers(t *testing.T) {
	plain := workload{name: "plain", root: "/tree/plain"}
	docs, err := configDocs("receivers:\n  mergelog: {}\n", variant{name: "shipped"}, plain)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 2 {
		t.Fatalf("want the base and the workload's override, got %q", docs)
	}
	ids, err := componentIDs(docs, "receivers")
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 1 || !ids["mergelog"] {
		t.Errorf("receivers: got %v, want mergelog only", ids)
	}
	if !strings.Contains(docs[1], "/tree/plain/*.log") || !strings.Contains(docs[1], "format: text") {
		t.Errorf("the override lost mergelog's settings:\n%s", docs[1])
	}

	preset, err := configDocs("", variant{name: "preset", preset: true}, plain)
	if err != nil {
		t.Fatal(err)
	}
	if ids, _ := componentIDs(preset, "receivers"); len(ids) != 1 || !ids["filelog"] {
		t.Errorf("preset receivers: got %v, want filelog only", ids)
	}
}

func TestKeepReceivers(t *testing.T) {
	doc := "receivers:\n  mergelog:\n    line_start_pattern: '\\d{4} '\n  filelog:\n    operators: []\n"
	got, err := keepReceivers(doc, map[string]bool{"mergelog": true})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(got, "filelog") || !strings.Contains(got, `line_start_pattern: '\d{4} '`) {
		t.Errorf("got:\n%s", got)
	}
	if got, err := keepReceivers(doc, nil); err != nil || got != "" {
		t.Errorf("nothing kept: got %q, %v; want an empty override", got, err)
	}
}
