package refusal

import "go.opentelemetry.io/collector/pdata/plog"

// Cut moves records [at, n) of ld, in ld's order (resource by resource, scope by scope), into a
// plog.Logs of their own, each under a copy of its resource and scope, and leaves ld with
// records [0, at): no record is copied, so that splitting a batch costs little. Scopes and
// resources left without records are removed from ld.
func Cut(ld plog.Logs, at int) plog.Logs {
	out := plog.NewLogs()
	first := 0 // index of the first record of the scope being looked at
	rls := ld.ResourceLogs()
	for i := range rls.Len() {
		rl := rls.At(i)
		var outRL plog.ResourceLogs
		made := false
		sls := rl.ScopeLogs()
		for j := range sls.Len() {
			sl := sls.At(j)
			recs := sl.LogRecords()
			keep := max(at-first, 0)
			first += recs.Len()
			if keep >= recs.Len() {
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
			moveFrom(recs, keep, outSL.LogRecords())
		}
		sls.RemoveIf(func(sl plog.ScopeLogs) bool { return sl.LogRecords().Len() == 0 })
	}
	rls.RemoveIf(func(rl plog.ResourceLogs) bool { return rl.ScopeLogs().Len() == 0 })
	return out
}

// moveFrom moves the records of recs from index keep on, in order, into dest, which is empty.
func moveFrom(recs plog.LogRecordSlice, keep int, dest plog.LogRecordSlice) {
	if keep == 0 {
		recs.MoveAndAppendTo(dest)
		return
	}
	dest.EnsureCapacity(recs.Len() - keep)
	k := 0
	recs.RemoveIf(func(lr plog.LogRecord) bool {
		k++
		if k <= keep {
			return false
		}
		lr.MoveTo(dest.AppendEmpty())
		return true
	})
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
