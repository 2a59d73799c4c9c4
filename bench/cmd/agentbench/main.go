// Command agentbench measures the node agent end to end, as users deploy it: the built
// distribution run as a process with the pod's limits, on a tree of log files read from the
// beginning, exporting to a local OTLP endpoint that counts every record. Beside the shipped
// agent config it runs, interleaved in the same run, the helm chart's logsCollection preset
// (anchor a) and the preset's receiver inside the shipped pipeline (anchor b), and Fluent Bit
// (-fluent-bit, on the pods workload) as a third anchor. A collector variant runs on the node
// agent's build (-otelcol-agent) where its config uses only components that build has, else on
// the full distribution (-otelcol): the preset's file_log and batch are not in the agent's.
//
// The default workloads are pod logs (pods), one-line plain files (plain) and multiline
// application logs (multiline). The ops-* workloads, chosen with -workloads, are issue 13's
// chains of file_log operators, each on a workload of its own, read by both receivers with the
// same operators (ops.go): ops-container ([container] on pod logs), ops-json (json_parser with
// timestamp and severity on JSON application logs), ops-regex (regex_parser and
// severity_parser on text application logs) and ops-podjson (container, json_parser, two moves
// and a remove on pod logs of JSON). With -variants shipped,preset-rx the two sides run in the
// same shipped pipeline, and ratio (b) is mergelog's over file_log's on the chain.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

type options struct {
	otelcol    string
	agent      string // the node agent's build
	fluentBit  string
	shipped    string
	dir        string
	sizeMB     int
	pods       int
	runs       int
	workloads  string
	variants   string
	limits     limits
	timeout    time.Duration
	extraFiles string
	slow       time.Duration
	decode     bool
}

func main() {
	var o options
	flag.StringVar(&o.otelcol, "otelcol", "_build/otelcol-mergelog", "the built distribution (the variants whose components the agent's build lacks)")
	flag.StringVar(&o.agent, "otelcol-agent", "_build/agent/otelcol-mergelog-agent", "the node agent's build, for each variant whose components it has ('': none, every variant on -otelcol)")
	flag.StringVar(&o.fluentBit, "fluent-bit", "", "Fluent Bit's binary, for the fluent-bit variants (skipped without it)")
	flag.StringVar(&o.shipped, "config", "deploy/kubernetes/agent-config.yaml", "the shipped agent config")
	flag.StringVar(&o.dir, "dir", "", "work directory (default: a new temporary one, removed at the end)")
	flag.IntVar(&o.sizeMB, "size", 300, "MB of logs per workload")
	flag.IntVar(&o.pods, "pods", 20, "pods (files) per workload")
	flag.IntVar(&o.runs, "runs", 3, "runs of each variant on each workload (the table shows medians)")
	flag.StringVar(&o.workloads, "workloads", "pods,plain,multiline", "workloads: pods, plain, multiline, traces (pod logs, 5 %% of entries Java, Python or Go stack traces; with -variants shipped,detect-off,preset-recombine), splitlines (lines of 800 KiB in 16 KiB CRI pieces; with -pods 200 -size 164, one a file); issue 13's operator chains, each read by both receivers with the same operators: "+opsNames)
	flag.StringVar(&o.variants, "variants", "", "comma-separated variants (default: all); -list shows them")
	flag.StringVar(&o.limits.gomaxprocs, "gomaxprocs", "1", "GOMAXPROCS of the agent (as the DaemonSet sets it)")
	flag.StringVar(&o.limits.gomemlimit, "gomemlimit", "400MiB", "GOMEMLIMIT of every collector variant alike (the DaemonSet sets 200MiB, under which ours stays; the helm chart sets none without a memory limit, and its preset needs more)")
	flag.DurationVar(&o.timeout, "timeout", 10*time.Minute, "a run that has not delivered every record by then fails")
	flag.StringVar(&o.extraFiles, "extra", "", "comma-separated name=file.yaml: more variants, each an override of the shipped config")
	flag.DurationVar(&o.slow, "gateway-delay", 0, "delay every request at the gateway by this much (a slow gateway)")
	flag.BoolVar(&o.decode, "gateway-decode", false, "decode every request into pdata at the gateway, as a gateway collector does (default: scan the bytes for the records' seqs, which takes less of the CPU the agent competes for)")
	list := flag.Bool("list", false, "list the variants and exit")
	flag.Parse()
	if *list {
		for _, v := range variants {
			fmt.Printf("%-16s %s\n", v.name, v.about)
		}
		return
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "agentbench:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	shipped, err := os.ReadFile(o.shipped)
	if err != nil {
		return err
	}
	chosen, err := chooseVariants(o)
	if err != nil {
		return err
	}
	dir := o.dir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "agentbench-"); err != nil {
			return err
		}
		defer func() { _ = os.RemoveAll(dir) }() // a temporary directory: left behind at worst
	}
	gw, err := startGateway(o.decode)
	if err != nil {
		return err
	}
	defer gw.stop()
	gw.delay = o.slow

	bs, err := loadBuilds(o.otelcol, o.agent, o.fluentBit)
	if err != nil {
		return err
	}
	var rows []row
	failed := false
	for i, name := range strings.Split(o.workloads, ",") {
		wl, err := generate(name, dir, int64(o.sizeMB)*1e6, o.pods, uint64(i+1))
		if err != nil {
			return fmt.Errorf("workload %s: %w", name, err)
		}
		fmt.Fprintf(os.Stderr, "workload %s: %d records, %.0f MB in %d files\n", wl.name, wl.records, float64(wl.bytes)/1e6, o.pods)
		plans, err := planRuns(string(shipped), chosen, wl, bs)
		if err != nil {
			return err
		}
		results := map[string][]result{}
		for r := range o.runs {
			for _, p := range plans { // interleaved: each round runs every variant once
				runDir := filepath.Join(dir, "runs", fmt.Sprintf("%s-%s-%d", wl.name, p.v.name, r))
				state := filepath.Join(runDir, "state")
				if err := os.MkdirAll(state, 0o755); err != nil {
					return err
				}
				var configs []string
				if p.v.fluentBit {
					configs, err = fluentBitFiles(runDir, p.v, wl, gw.httpAddr, state)
				} else {
					configs, err = configFiles(runDir, p.v, p.docs, wl, gw.addr, gw.httpAddr, state)
				}
				if err != nil {
					return err
				}
				res := runAgent(p.build.bin, configs, p.v.args, o.limits, gw, wl, o.timeout, filepath.Join(runDir, "agent.log"))
				fmt.Fprintf(os.Stderr, "  %-10s %-14s run %d: %s\n", wl.name, p.v.name, r+1, res.line(wl))
				if res.err != nil {
					failed = true
				}
				results[p.v.name] = append(results[p.v.name], res)
				_ = os.RemoveAll(state)
			}
		}
		for _, p := range plans {
			rows = append(rows, summarize(wl, p, results[p.v.name]))
		}
	}
	printTable(os.Stdout, o, rows)
	if failed {
		return fmt.Errorf("some runs did not deliver every record (see above)")
	}
	return nil
}

// plan is how a variant runs on a workload: its config docs (a collector's) and its build.
type plan struct {
	v     variant
	docs  []string
	build build
}

// planRuns plans each chosen variant's runs on wl, leaving out, with a word why, the variants
// that do not run on it.
func planRuns(shipped string, chosen []variant, wl workload, bs builds) ([]plan, error) {
	var plans []plan
	for _, v := range chosen {
		if why := fluentBitSkip(wl); v.fluentBit && why != "" {
			fmt.Fprintf(os.Stderr, "  %-10s %-14s skipped: %s\n", wl.name, v.name, why)
			continue
		}
		p := plan{v: v}
		var err error
		if !v.fluentBit {
			p.docs, err = configDocs(shipped, v, wl)
		}
		if err == nil {
			p.build, err = bs.choose(v, p.docs)
		}
		if err != nil {
			return nil, fmt.Errorf("variant %s: %w", v.name, err)
		}
		plans = append(plans, p)
	}
	return plans, nil
}

func generate(name, dir string, size int64, files int, seed uint64) (workload, error) {
	switch name {
	case "pods":
		return podTree(dir, size, files, seed)
	case "plain":
		return plainTree(dir, size, files, seed)
	case "multiline":
		return multilineTree(dir, size, files, seed)
	case "traces":
		return traceTree(dir, size, files, seed)
	case "splitlines":
		return splitLineTree(dir, size, files)
	}
	if c, ok := opsCases[name]; ok {
		return opsTree(c, name, dir, size, files, seed)
	}
	return workload{}, fmt.Errorf("unknown workload %q (pods, plain, multiline, traces, splitlines, %s)", name, opsNames)
}

func chooseVariants(o options) ([]variant, error) {
	all := append([]variant(nil), variants...)
	if o.extraFiles != "" {
		for _, kv := range strings.Split(o.extraFiles, ",") {
			name, file, ok := strings.Cut(kv, "=")
			if !ok {
				return nil, fmt.Errorf("-extra: want name=file.yaml, got %q", kv)
			}
			data, err := os.ReadFile(file)
			if err != nil {
				return nil, err
			}
			v := variant{name: name, about: "shipped config + " + file, overrides: []string{string(data)}}
			for _, line := range strings.Split(string(data), "\n") {
				if rest, ok := strings.CutPrefix(line, "# args:"); ok {
					v.args = append(v.args, strings.Fields(rest)...)
				}
			}
			all = append(all, v)
		}
	}
	if o.variants == "" {
		return withFluentBit(all, o.fluentBit), nil
	}
	var out []variant
	for _, name := range strings.Split(o.variants, ",") {
		found := false
		for _, v := range all {
			if v.name == name {
				out, found = append(out, v), true
			}
		}
		if !found {
			return nil, fmt.Errorf("unknown variant %q (-list shows them)", name)
		}
	}
	return withFluentBit(out, o.fluentBit), nil
}

// withFluentBit leaves the fluent-bit variants out of vs, saying so, unless bin is Fluent Bit's
// executable.
func withFluentBit(vs []variant, bin string) []variant {
	return slices.DeleteFunc(vs, func(v variant) bool {
		if !v.fluentBit {
			return false
		}
		if bin == "" {
			fmt.Fprintf(os.Stderr, "agentbench: variant %s skipped: no -fluent-bit binary given\n", v.name)
			return true
		}
		if _, err := exec.LookPath(bin); err != nil {
			fmt.Fprintf(os.Stderr, "agentbench: variant %s skipped: no Fluent Bit build at %s (-fluent-bit; FLUENT_BIT= of make bench-agent): %v\n", v.name, bin, err)
			return true
		}
		return false
	})
}
