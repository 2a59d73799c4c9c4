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
//
// It is not in the Makefile's MODULES (`make lint`), though vet, `go mod tidy -diff` and
// golangci-lint pass on it: its build graph adds 239 modules (201 MB of zips) to the 263 the
// five linted modules share (253 MB), and, with cold caches on this 2-core machine, 18 s of
// downloads, 131 s of `go vet` and 35 s of golangci-lint to every lint, for a benchmark run by
// hand. Check it with `go vet ./... && go mod tidy -diff` and golangci-lint here.
package testbed
