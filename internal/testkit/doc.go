// Package testkit holds the scaffolding the module's tests share: compressed fixtures in every
// format the receiver reads, numbered lines, files written and appended to, a logs consumer
// that records what it accepts and can be waited on; componentkit adds the checks of a
// component's factory and testdata/config.yaml. It plays the part fileconsumer's
// internal/emittest plays in contrib.
//
// Every helper that can fail takes a testing.TB and fails the test itself, so call sites need
// no error handling. The package is imported only from tests.
package testkit
