// Package semconvtest is an empty stand-in for contrib's test-only pkg/semconvtest (see go.mod):
// the distribution's build resolves the import and compiles nothing from it.
package semconvtest
