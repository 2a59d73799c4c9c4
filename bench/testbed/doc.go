// Package testbed runs the file cases of contrib's load test, the testbed's TestLog10kDPS
// (github.com/open-telemetry/opentelemetry-collector-contrib/testbed v0.148.0, tests/log_test.go),
// against the full distribution (_build/otelcol-mergelog) as the testbed's child-process
// collector: each case twice, once as the testbed writes it (contrib's file_log under its
// "filelog" key) and once with the same receiver config under our receiver's key (mergelog),
// and writes the testbed's CPU and RSS figures of the two side by side. `make bench-testbed`
// runs it; without TESTBED_OTELCOL the test does nothing.
//
// A module of its own: the testbed pins the collector at v0.148.0/v1.54.0, far from the root
// module's, and pulls in much of contrib. Three modules its datasenders package imports are not
// served by the Go proxy at v0.148.0; standins/ holds minimal stand-ins for them (replaced in
// go.mod), enough for code the file cases never run to compile.
package testbed
