// Package mergelogprocessor provides the mergelog processor: at a gateway, it merges the log
// records of many sources (node agents) that share a merge key (a group) into timestamp order
// under a bounded delay, with the engine's merge window (internal/mergewindow) and, with a storage
// extension, at-least-once delivery across restarts.
package mergelogprocessor // import "github.com/mergelog/otelcol-mergelog/processor/mergelogprocessor"
