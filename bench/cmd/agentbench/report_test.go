package main

import (
	"strings"
	"testing"
)

// Fluent Bit's anchor is its chart's config where a run of it delivered everything, else the
// filesystem-buffered one, and the header names the one used.
func TestPrintTableFluentBitAnchor(t *testing.T) {
	shipped := row{workload: "pods", variant: "shipped", runs: 1, mbPerCPU: 160}
	chart := row{workload: "pods", variant: "fluent-bit", runs: 1, failed: 1}
	fs := row{workload: "pods", variant: "fluent-bit-fs", runs: 1, mbPerCPU: 40}

	var out strings.Builder
	printTable(&out, options{}, []row{shipped, chart, fs})
	if !strings.Contains(out.String(), "| × fluent-bit-fs |") {
		t.Errorf("the chart's config lost records: want the fs anchor in the header:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "| shipped |  | 0.0 | 160.0 | – | – | 4.00× |") {
		t.Errorf("want shipped at 4.00× the fs anchor:\n%s", out.String())
	}

	chart.failed, chart.mbPerCPU = 0, 50
	out.Reset()
	printTable(&out, options{}, []row{shipped, chart, fs})
	if !strings.Contains(out.String(), "| × fluent-bit |") || !strings.Contains(out.String(), "| 3.20× |") {
		t.Errorf("the chart's config delivered: want it as the anchor:\n%s", out.String())
	}
}
