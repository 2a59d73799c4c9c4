package mergelogreceiver

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// file_log's `operators` are stanza operators run on each entry. The one the receiver runs
// itself is `container` (CRI and Docker lines, split lines joined, the pod's identity from the
// path), first and alone, as the helm chart's logsCollection preset has it: it is what
// format: container does, without stanza's goroutine. Any other operator is refused at start,
// naming it: parsing belongs in the transform processor after the receiver (see README).

// containerOperatorKeys are the container operator's keys that mean here what they mean in
// file_log; the values of format and add_metadata_from_filepath that would differ are refused.
var containerOperatorKeys = []string{"type", "id", "max_log_size", "format", "add_metadata_from_filepath", "on_error"}

// validateOperators checks that operators is empty or one container operator.
func validateOperators(ops []map[string]any) error {
	for i, op := range ops {
		typ, _ := op["type"].(string)
		id, _ := op["id"].(string)
		name := fmt.Sprintf("operators[%d] (type %q", i, typ)
		if id != "" {
			name += fmt.Sprintf(", id %q", id)
		}
		name += ")"
		if typ != "container" || i > 0 {
			return fmt.Errorf("%s: not supported: only a container operator, first and alone, runs in this receiver (as format: container); "+
				"parse with the transform processor after it (README: Switching from file_log)", name)
		}
		var unknown []string
		for k := range op {
			if !slices.Contains(containerOperatorKeys, k) {
				unknown = append(unknown, k)
			}
		}
		if len(unknown) > 0 {
			sort.Strings(unknown)
			return fmt.Errorf("%s: unsupported keys %s", name, strings.Join(unknown, ", "))
		}
		if f, ok := op["format"]; ok && !slices.Contains([]any{"", "docker", "crio", "containerd"}, f) {
			return fmt.Errorf("%s: format: must be docker, crio or containerd (got %v); each line's format is detected anyway", name, f)
		}
		if v, ok := op["add_metadata_from_filepath"]; ok && v != true {
			return fmt.Errorf("%s: add_metadata_from_filepath: the receiver always adds the pod's identity from the path (got %v)", name, v)
		}
		if v, ok := op["max_log_size"]; ok {
			if _, err := operatorSize(v); err != nil {
				return fmt.Errorf("%s: max_log_size: %w", name, err)
			}
		}
	}
	return nil
}

// operatorSize reads a max_log_size as the config decoder hands it over: a number or a string
// with a unit.
func operatorSize(v any) (ByteSize, error) {
	var b ByteSize
	switch x := v.(type) {
	case int:
		b = ByteSize(x)
	case int64:
		b = ByteSize(x)
	case float64:
		b = ByteSize(x)
	case string:
		if err := b.UnmarshalText([]byte(x)); err != nil {
			return 0, err
		}
	default:
		return 0, fmt.Errorf("not a size: %v", v)
	}
	if b < 0 {
		return 0, fmt.Errorf("must not be negative (got %d)", b)
	}
	return b, nil
}

// container reports whether lines are read as a container runtime's: format container, or the
// container operator.
func (c *Config) container() bool {
	return c.Format == FormatContainer || len(c.Operators) == 1 && c.Operators[0]["type"] == "container"
}

// logSize is the cap of a log entry: max_log_size, or the container operator's when smaller
// (file_log caps a recombined line with it).
func (c *Config) logSize() int {
	size := c.MaxLogSize
	if len(c.Operators) == 1 {
		if v, ok := c.Operators[0]["max_log_size"]; ok {
			if op, err := operatorSize(v); err == nil && op > 0 && op < size {
				size = op
			}
		}
	}
	return int(size)
}
