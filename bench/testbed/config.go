package testbed

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	tb "github.com/open-telemetry/opentelemetry-collector-contrib/testbed/testbed"
)

// collectorConfig is the config the testbed's scenario gives the collector under test: the
// sender's receiver, the backend's exporter, a batch processor, the pprof extension saving a
// CPU profile of the run into resultDir, and the case's extensions (name to config section).
func collectorConfig(sender tb.DataSender, backend tb.DataReceiver, resultDir string, extensions map[string]string) string {
	names := slices.Sorted(maps.Keys(extensions))
	var sections strings.Builder
	for _, name := range names {
		sections.WriteString(extensions[name])
		sections.WriteString("\n")
	}
	return fmt.Sprintf(`
receivers:%s
exporters:%s
processors:
  batch:
extensions:
  pprof:
    save_to_file: %s/cpu.prof
%s
service:
  extensions: [%s]
  pipelines:
    logs:
      receivers: [%s]
      processors: [batch]
      exporters: [%s]
`,
		sender.GenConfigYAMLStr(),
		backend.GenConfigYAMLStr(),
		resultDir,
		sections.String(),
		strings.Join(append([]string{"pprof"}, names...), ", "),
		sender.ProtocolName(),
		backend.ProtocolName(),
	)
}
