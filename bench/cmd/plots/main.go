// Command plots draws the README's headline figures as SVG bar charts from the benchmarks'
// reports, so that they are redrawn whenever the figures change: from bench-steady's report
// (e2e/node TestSteady) each agent's CPU per GB and peak RSS at a steady rate, and from
// bench-agent's (agentbench) each variant's CPU per GB and peak RSS catching up, per workload.
//
//	make plots    # _build/steady-report.md and _build/agent-report.md → docs/figures/*.svg
package main

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// figure is a chart and the file it is written to.
type figure struct {
	file  string
	chart chart
}

type options struct {
	steady, agent, out string
	variants           []string
}

func main() {
	var o options
	flag.StringVar(&o.steady, "steady", "_build/steady-report.md", "bench-steady's report (\"\": none)")
	flag.StringVar(&o.agent, "agent", "_build/agent-report.md", "bench-agent's report (\"\": none)")
	flag.StringVar(&o.out, "out", "docs/figures", "the directory the SVG files are written to")
	variants := flag.String("variants", "shipped,preset,fluent-bit,fluent-bit-fs", "agentbench's variants drawn, in this order (those in the report)")
	flag.Parse()
	o.variants = strings.Split(*variants, ",")
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "plots:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	var figures []figure
	if o.steady != "" {
		text, err := readReport(o.steady, "make bench-steady")
		if err != nil {
			return err
		}
		f, err := steadyCharts(text, o.steady)
		if err != nil {
			return fmt.Errorf("%s: %w", o.steady, err)
		}
		figures = append(figures, f...)
	}
	if o.agent != "" {
		text, err := readReport(o.agent, "make bench-agent")
		if err != nil {
			return err
		}
		f, err := catchupCharts(text, o.agent, o.variants)
		if err != nil {
			return fmt.Errorf("%s: %w", o.agent, err)
		}
		figures = append(figures, f...)
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	for _, f := range figures {
		svg, err := f.chart.render()
		if err != nil {
			return err
		}
		path := filepath.Join(o.out, f.file)
		if err := os.WriteFile(path, svg, 0o644); err != nil {
			return err
		}
		fmt.Println("plots: wrote", path)
	}
	return nil
}

// readReport reads a benchmark's report, saying which target writes it when there is none.
func readReport(path, target string) (string, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("no report at %s: %s writes it", path, target)
	}
	return string(data), err
}
