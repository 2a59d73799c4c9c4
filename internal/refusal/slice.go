package refusal

import "go.opentelemetry.io/collector/pdata/plog"

// Slice returns a copy of records [from, to) of ld, in ld's order (resource by resource, scope
// by scope), each under a copy of its resource and scope.
func Slice(ld plog.Logs, from, to int) plog.Logs {
	out := plog.NewLogs()
	at := 0 // index of the first record of the scope being looked at
	rls := ld.ResourceLogs()
	for i := 0; i < rls.Len() && at < to; i++ {
		rl := rls.At(i)
		var outRL plog.ResourceLogs
		made := false
		sls := rl.ScopeLogs()
		for j := 0; j < sls.Len() && at < to; j++ {
			sl := sls.At(j)
			recs := sl.LogRecords()
			lo, hi := max(from-at, 0), min(to-at, recs.Len())
			at += recs.Len()
			if lo >= hi {
				continue
			}
			if !made {
				outRL, made = out.ResourceLogs().AppendEmpty(), true
				rl.Resource().CopyTo(outRL.Resource())
				outRL.SetSchemaUrl(rl.SchemaUrl())
			}
			outSL := outRL.ScopeLogs().AppendEmpty()
			sl.Scope().CopyTo(outSL.Scope())
			outSL.SetSchemaUrl(sl.SchemaUrl())
			outRecs := outSL.LogRecords()
			outRecs.EnsureCapacity(hi - lo)
			for k := lo; k < hi; k++ {
				recs.At(k).CopyTo(outRecs.AppendEmpty())
			}
		}
	}
	return out
}

// recordAt returns the record at index at of ld, in ld's order.
func recordAt(ld plog.Logs, at int) (plog.LogRecord, bool) {
	rls := ld.ResourceLogs()
	for i := range rls.Len() {
		sls := rls.At(i).ScopeLogs()
		for j := range sls.Len() {
			recs := sls.At(j).LogRecords()
			if at < recs.Len() {
				return recs.At(at), true
			}
			at -= recs.Len()
		}
	}
	return plog.LogRecord{}, false
}
