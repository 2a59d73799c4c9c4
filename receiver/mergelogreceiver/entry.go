package mergelogreceiver

import (
	"go.opentelemetry.io/collector/pdata/plog"

	stanza "github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/entry"

	"github.com/mergelog/otelcol-mergelog/internal/ledger"
)

// entry is one log entry on its way into a batch: the receiver owns its body (the joiner's
// bytes are only valid during its callback, and the merge window holds entries for a while).
// With operators, what comes out of them rides in out instead.
type entry struct {
	s        *stream
	seq      ledger.Seq // its place in s's ledger
	start    int64      // offset of its first byte
	record   int64      // log.file.record_number
	body     string     // with out, its body when a string (for batch.max_bytes)
	at       int64      // Unix nanoseconds; meaningful when timed
	timed    bool
	observed int64
	logtag   string         // the native container operator's logtag attribute
	out      *stanza.Entry  // what the operators made of it
	rec      plog.LogRecord // with native, what the fast chain made of it
	native   bool
	unmarked bool // a copy made by a fan-out: no ledger entry of its own
	shared   bool // out may be another record's too (a fan-out): not recycled
}
