// Package pageoutextension gives back to the system, once the pipelines have
// started, the pages of the collector's executable that it no longer uses: the
// code and tables that only its start-up ran (every package's initialisation,
// reading the config, building the pipelines). See README.md.
package pageoutextension // import "github.com/mergelog/otelcol-mergelog/extension/pageoutextension"
