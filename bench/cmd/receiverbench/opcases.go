package main

import "github.com/mergelog/otelcol-mergelog/bench/internal/rig"

// operatorCases are issue 13's chains of file_log operators, each run with the same keys by
// file_log and by mergelog (the receiver renamed, nothing else): the target is 3x file_log.
func operatorCases(gen *generator, size int64) ([]benchCase, error) {
	pods, err := gen.pods(size)
	if err != nil {
		return nil, err
	}
	appJSON, err := gen.appJSON(size)
	if err != nil {
		return nil, err
	}
	appText, err := gen.appText(size)
	if err != nil {
		return nil, err
	}
	podJSON, err := gen.podJSON(size)
	if err != nil {
		return nil, err
	}
	withOps := func(in input, ops ...map[string]any) map[string]any {
		k := baseKeys(in.glob)
		k["include_file_path"] = true // the container operator's pod identity comes from the path
		list := make([]any, len(ops))
		for i, op := range ops {
			list[i] = op
		}
		k["operators"] = list
		return k
	}
	container := map[string]any{"type": "container"}
	both := []rig.Receiver{rig.FileLog, rig.Mergelog}
	goal := target{minRatio: 3}
	return []benchCase{
		{name: "ops [container], pods", input: pods, keys: withOps(pods, container), receivers: both, target: goal},
		{name: "ops [json_parser time+sev], app JSON", input: appJSON, receivers: both, target: goal, keys: withOps(appJSON,
			map[string]any{
				"type":      "json_parser",
				"timestamp": map[string]any{"parse_from": "attributes.time", "layout_type": "gotime", "layout": "2006-01-02T15:04:05.999999999Z07:00"},
				"severity":  map[string]any{"parse_from": "attributes.level"},
			})},
		{name: "ops [regex_parser, severity_parser], app text", input: appText, receivers: both, target: goal, keys: withOps(appText,
			map[string]any{
				"type":  "regex_parser",
				"regex": `^(?P<time>\S+ \S+) (?P<sev>[A-Z]+) +\[(?P<thread>[^\]]+)\] (?P<logger>\S+) - (?P<msg>.*)$`,
			},
			map[string]any{"type": "severity_parser", "parse_from": "attributes.sev"})},
		{name: "ops [container, json_parser, move x2, remove], pod JSON", input: podJSON, receivers: both, target: goal, keys: withOps(podJSON,
			container,
			map[string]any{"type": "json_parser", "parse_from": "body", "if": `body matches "^\\{"`},
			map[string]any{"type": "move", "from": "attributes.msg", "to": "body"},
			map[string]any{"type": "move", "from": "attributes.level", "to": "attributes.severity"},
			map[string]any{"type": "remove", "field": "attributes.time"})},
	}, nil
}
