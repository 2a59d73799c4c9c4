package main

import (
	"fmt"
	"os/exec"
	"strings"

	"go.yaml.in/yaml/v3"
)

// The binaries a variant runs on. A collector variant runs on the node agent's build
// (builder-config-agent.yaml), as the DaemonSet runs it, where its config uses only components
// that build has; else on the full distribution (the preset's file_log and batch). The
// fluent-bit variants run on Fluent Bit.

// build is the binary of a variant's runs and what the table calls it.
type build struct {
	name string // agent, full or fluent-bit
	bin  string
}

// builds are the binaries of the benchmark and the components of the agent's build.
type builds struct {
	full, agent, fluentBit string
	// agentHas holds the agent build's components as kind/type ("receivers/mergelog"); nil
	// without an agent build, when every collector variant runs on the full one.
	agentHas map[string]bool
}

// loadBuilds asks the agent's build for its components (`otelcol components`).
func loadBuilds(full, agent, fluentBit string) (builds, error) {
	b := builds{full: full, agent: agent, fluentBit: fluentBit}
	if agent == "" {
		return b, nil
	}
	out, err := exec.Command(agent, "components").Output()
	if err != nil {
		return b, fmt.Errorf("%s components: %w (make agent; or -otelcol-agent '' to run every variant on -otelcol)", agent, err)
	}
	b.agentHas, err = parseComponents(out)
	return b, err
}

// componentKinds are a collector config's sections of components, as `components` names them.
var componentKinds = []string{"receivers", "processors", "exporters", "connectors", "extensions"}

// parseComponents reads the components that `otelcol components` lists, as kind/type.
func parseComponents(out []byte) (map[string]bool, error) {
	var listed map[string]any
	if err := yaml.Unmarshal(out, &listed); err != nil {
		return nil, fmt.Errorf("parsing the components: %w", err)
	}
	has := map[string]bool{}
	for _, kind := range componentKinds {
		list, _ := listed[kind].([]any)
		for _, c := range list {
			if name, ok := c.(map[string]any)["name"].(string); ok {
				has[kind+"/"+name] = true
			}
		}
	}
	if len(has) == 0 {
		return nil, fmt.Errorf("no components in %q", out)
	}
	return has, nil
}

// choose is the build v runs on with the config docs.
func (b builds) choose(v variant, docs []string) (build, error) {
	if v.fluentBit {
		return build{"fluent-bit", b.fluentBit}, nil
	}
	full := build{"full", b.full}
	if b.agentHas == nil {
		return full, nil
	}
	for _, kind := range componentKinds {
		ids, err := componentIDs(docs, kind)
		if err != nil {
			return build{}, err
		}
		for id := range ids {
			typ, _, _ := strings.Cut(id, "/") // an ID is type[/name]
			if !b.agentHas[kind+"/"+typ] {
				return full, nil
			}
		}
	}
	return build{"agent", b.agent}, nil
}

// componentIDs are the IDs the docs configure in the section kind.
func componentIDs(docs []string, kind string) (map[string]bool, error) {
	ids := map[string]bool{}
	for _, d := range docs {
		var cfg map[string]any
		if err := yaml.Unmarshal([]byte(d), &cfg); err != nil {
			return nil, fmt.Errorf("parsing a config: %w", err)
		}
		section, _ := cfg[kind].(map[string]any)
		for id := range section {
			ids[id] = true
		}
	}
	return ids, nil
}

// keepReceivers drops from doc the receivers not in keep, so that a workload's override, which
// configures both mergelog and file_log, adds no receiver the variant does not have (nor a
// component its build might lack).
func keepReceivers(doc string, keep map[string]bool) (string, error) {
	var cfg map[string]any
	if err := yaml.Unmarshal([]byte(doc), &cfg); err != nil {
		return "", fmt.Errorf("parsing an override: %w", err)
	}
	receivers, _ := cfg["receivers"].(map[string]any)
	for id := range receivers {
		if !keep[id] {
			delete(receivers, id)
		}
	}
	if len(receivers) == 0 {
		delete(cfg, "receivers")
	}
	if len(cfg) == 0 {
		return "", nil
	}
	out, err := yaml.Marshal(cfg)
	return string(out), err
}
