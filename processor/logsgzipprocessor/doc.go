// Package logsgzipprocessor provides the logsgzip processor, which replaces
// each log record's body with its gzip compression, in place.
package logsgzipprocessor // import "github.com/mergelog/otelcol-mergelog/processor/logsgzipprocessor"
