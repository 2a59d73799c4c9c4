package refusal

import (
	"context"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.uber.org/zap"
)

// The drop logs' rate: up to dropLogBurst per dropLogEvery; the next one logged says how many
// were not (the metric counts them all).
const (
	dropLogEvery = 10 * time.Second
	dropLogBurst = 10
)

// dropLog rations the drops' log lines.
type dropLog struct {
	since    time.Time // start of the current interval
	logged   int       // in it
	unlogged int       // since the last line
}

// allow reports whether a drop at now is logged, and how many were not since the last one.
func (l *dropLog) allow(now time.Time) (bool, int) {
	if now.Sub(l.since) >= dropLogEvery {
		l.since, l.logged = now, 0
	}
	if l.logged >= dropLogBurst {
		l.unlogged++
		return false, 0
	}
	l.logged++
	n := l.unlogged
	l.unlogged = 0
	return true, n
}

// recordKeys are the attributes that name a record's origin when the Namer cannot (file_log's
// and the mergelog receiver's).
var recordKeys = [...]string{"log.file.path", "log.file.name", "log.file.record_number", "log.file.record_offset"}

// drop drops p's records for a refusal of class c: each is counted and logged (rationed) with
// its encoded size and its origin.
func (s *Sender) drop(ctx context.Context, p part, c Class, err error, name Namer) {
	s.Observer.Dropped(ctx, p.n, c)
	var m plog.ProtoMarshaler
	now := time.Now()
	for i := range p.n {
		ok, unlogged := s.drops.allow(now)
		if !ok {
			continue
		}
		rec, _ := recordAt(p.logs, i)
		fields := []zap.Field{zap.Stringer("class", c), zap.Error(err), zap.Int("record_bytes", m.LogRecordSize(rec))}
		var origin []zap.Field
		if p.named && name != nil {
			origin = name(p.at + i)
		}
		if origin != nil {
			fields = append(fields, origin...)
		} else {
			fields = appendOrigin(fields, rec.Attributes())
		}
		if unlogged > 0 {
			fields = append(fields, zap.Int("drops_not_logged_before", unlogged))
		}
		s.Logger.Error("The next consumer refused a record for good; it is dropped", fields...)
	}
}

// appendOrigin adds the attributes of attrs that name a record's origin.
func appendOrigin(fields []zap.Field, attrs pcommon.Map) []zap.Field {
	for _, k := range recordKeys {
		if v, ok := attrs.Get(k); ok {
			fields = append(fields, zap.String(k, v.AsString()))
		}
	}
	return fields
}
