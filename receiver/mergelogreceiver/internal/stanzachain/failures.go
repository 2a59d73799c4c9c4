package stanzachain

import (
	"sync/atomic"

	"go.uber.org/zap/zapcore"
)

// FailedEntryMessage is what stanza's operators log, at error or (quiet on_error) debug level,
// for each entry they fail on.
const FailedEntryMessage = "Failed to process entry"

// failureCounter counts the entries operators fail on from their logs. Stanza has no other
// hook that sees every failure: Process returns nil in the quiet on_error modes, and passes up
// a later operator's error otherwise; the operators after a holding one run (and fail) in its
// goroutine, not in Process. The log is the one place every on_error path reports to, so the
// counter lets debug entries through to Check, that quiet ones count too, and passes on only
// what the logger it wraps would write.
type failureCounter struct {
	zapcore.Core
	failures *atomic.Int64
}

func (c *failureCounter) Enabled(zapcore.Level) bool { return true }

func (c *failureCounter) With(fields []zapcore.Field) zapcore.Core {
	return &failureCounter{Core: c.Core.With(fields), failures: c.failures}
}

func (c *failureCounter) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if e.Message == FailedEntryMessage {
		c.failures.Add(1)
	}
	if !c.Core.Enabled(e.Level) {
		return ce
	}
	return c.Core.Check(e, ce)
}
