package main

import (
	"fmt"

	"github.com/mergelog/otelcol-mergelog/bench/internal/rig"
)

// benchCase is one workload, run by each of its receivers.
type benchCase struct {
	name      string
	input     input
	keys      map[string]any
	fileLog   map[string]any // file_log's keys where they differ from keys
	receivers []rig.Receiver
	target    target
}

// target is what the issue asks of mergelog on a workload (zero: no such target).
type target struct {
	minRatio float64 // over file_log, in the same run
	minMBps  float64
}

func benchCases(gen *generator, size int64, workloads []string) ([]benchCase, error) {
	both := []rig.Receiver{rig.FileLog, rig.Mergelog}
	var cases []benchCase
	for _, w := range workloads {
		switch w {
		case "logtail":
			in, err := gen.logtail(size)
			if err != nil {
				return nil, err
			}
			for _, pattern := range []string{"cnt.*", "^cnt"} {
				cases = append(cases, benchCase{name: "logtail " + pattern, input: in, keys: multilineKeys(in.glob, pattern),
					receivers: both, target: target{minRatio: 15, minMBps: 633}})
			}
		case "clf":
			in, err := gen.clf(size)
			if err != nil {
				return nil, err
			}
			cases = append(cases, benchCase{name: "plain lines (CLF)", input: in, keys: baseKeys(in.glob), receivers: both,
				target: target{minRatio: 3}})
		case "merge":
			in, err := gen.merge(size)
			if err != nil {
				return nil, err
			}
			// file_log cannot merge: mergelog alone.
			cases = append(cases, benchCase{name: "7-file CLF merge", input: in, keys: mergeKeys(in.glob),
				receivers: []rig.Receiver{rig.Mergelog}, target: target{minMBps: 300}})
		case "pods":
			in, err := gen.pods(size)
			if err != nil {
				return nil, err
			}
			// The same job both ways: strip the CRI prefix, join split lines, take the pod's
			// identity from the path. file_log does it with its container operator.
			ours, theirs := baseKeys(in.glob), baseKeys(in.glob)
			ours["format"] = "container"
			theirs["include_file_path"] = true
			theirs["operators"] = []any{map[string]any{"type": "container", "format": "containerd"}}
			cases = append(cases, benchCase{name: "pod logs (CRI)", input: in, keys: ours, fileLog: theirs,
				receivers: both})
		case "operators":
			ops, err := operatorCases(gen, size)
			if err != nil {
				return nil, err
			}
			cases = append(cases, ops...)
		default:
			return nil, fmt.Errorf("-workloads: unknown workload %q", w)
		}
	}
	return cases, nil
}

func baseKeys(glob string) map[string]any {
	return map[string]any{"include": []any{glob}, "start_at": "beginning"}
}

func multilineKeys(glob, pattern string) map[string]any {
	k := baseKeys(glob)
	k["multiline"] = map[string]any{"line_start_pattern": pattern}
	return k
}

func mergeKeys(glob string) map[string]any {
	k := baseKeys(glob)
	k["timestamp"] = map[string]any{"format": "clf"}
	k["merge"] = map[string]any{"enabled": true}
	return k
}
