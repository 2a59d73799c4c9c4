package refusal

import "go.opentelemetry.io/collector/pdata/plog"

// Slice returns a copy of records [from, to) of ld, in ld's order (resource by resource, scope
// by scope), each under a copy of its resource and scope.
func Slice(ld plog.Logs, from, to int) plog.Logs {
	return carve(ld, from, to, func(recs plog.LogRecordSlice, lo, hi int, dest plog.LogRecordSlice) {
		dest.EnsureCapacity(hi - lo)
		for k := lo; k < hi; k++ {
			recs.At(k).CopyTo(dest.AppendEmpty())
		}
	})
}

// Cut moves records [at, n) of ld, in order, into a plog.Logs of their own, each under a copy
// of its resource and scope, and leaves ld with records [0, at): no record is copied, so that
// splitting a batch costs little. Scopes and resources left without records are removed from ld.
func Cut(ld plog.Logs, at int) plog.Logs {
	out := carve(ld, at, ld.LogRecordCount(), func(recs plog.LogRecordSlice, lo, _ int, dest plog.LogRecordSlice) {
		if lo == 0 {
			recs.MoveAndAppendTo(dest)
			return
		}
		dest.EnsureCapacity(recs.Len() - lo)
		k := 0
		recs.RemoveIf(func(lr plog.LogRecord) bool {
			k++
			if k <= lo {
				return false
			}
			lr.MoveTo(dest.AppendEmpty())
			return true
		})
	})
	rls := ld.ResourceLogs()
	for i := range rls.Len() {
		rls.At(i).ScopeLogs().RemoveIf(func(sl plog.ScopeLogs) bool { return sl.LogRecords().Len() == 0 })
	}
	rls.RemoveIf(func(rl plog.ResourceLogs) bool { return rl.ScopeLogs().Len() == 0 })
	return out
}

// carve makes a plog.Logs of records [from, to) of ld: for each scope holding some of them,
// take gets the scope's records, the range [lo, hi) of them wanted, and the records of a scope
// made for them in the result (under a copy of the scope, and of its resource).
func carve(ld plog.Logs, from, to int, take func(recs plog.LogRecordSlice, lo, hi int, dest plog.LogRecordSlice)) plog.Logs {
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
			take(recs, lo, hi, outSL.LogRecords())
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
