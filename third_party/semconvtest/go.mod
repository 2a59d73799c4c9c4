// A stand-in for contrib's pkg/semconvtest, which the module proxy does not serve: only the
// k8sattributes processor's tests import it, but ocb's `go mod tidy` of the distribution looks
// at the tests of every package it builds and fails without it. Nothing is compiled from here.
module github.com/open-telemetry/opentelemetry-collector-contrib/pkg/semconvtest

go 1.26.0
