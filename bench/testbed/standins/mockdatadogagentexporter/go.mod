module github.com/open-telemetry/opentelemetry-collector-contrib/testbed/mockdatasenders/mockdatadogagentexporter

go 1.25.0

require (
	go.opentelemetry.io/collector/component v1.54.0
	go.opentelemetry.io/collector/exporter v1.54.0
)
