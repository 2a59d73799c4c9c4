package mergelogreceiver

import "go.uber.org/zap"

// origin is where a record of a batch came from: its file, the offset of its entry's first
// byte, its record number, and the place of its resource group's ResourceLogs in the batch.
type origin struct {
	path   string
	offset int64
	record int64
	group  int32
}

// origins name a batch's records when some are dropped. Records go into their group's
// ResourceLogs, so the batch's record order is the origins' order sorted by group.
type origins struct {
	of     []origin // in the order the records went in
	groups int32    // groups seen (the highest group + 1)
	// grouped: operators' records were converted into several groups by stanza; which record
	// went where is not known here (they are named by their attributes).
	grouped bool
	order   []int32 // of's indexes in the batch's record order, made by the first name
}

func (o *origins) add(e *entry, group int32) {
	o.of = append(o.of, origin{path: e.s.f.path, offset: e.start, record: e.record, group: group})
	o.groups = max(o.groups, group+1)
}

func (o *origins) reset() {
	o.of, o.order = o.of[:0], o.order[:0]
	o.groups, o.grouped = 0, false
}

// name names the record at index at of the batch; nil if it cannot.
func (o *origins) name(at int) []zap.Field {
	if o.grouped || at >= len(o.of) {
		return nil
	}
	if o.groups > 1 {
		o.sort()
		at = int(o.order[at])
	}
	r := o.of[at]
	return []zap.Field{zap.String("file", r.path), zap.Int64("offset", r.offset), zap.Int64("record_number", r.record)}
}

// sort makes order: of's indexes by group, in the order they went in within each.
func (o *origins) sort() {
	if len(o.order) == len(o.of) {
		return
	}
	start := make([]int32, o.groups+1)
	for _, r := range o.of {
		start[r.group+1]++
	}
	for g := 1; g < len(start); g++ {
		start[g] += start[g-1]
	}
	o.order = append(o.order[:0], make([]int32, len(o.of))...)
	for i, r := range o.of {
		o.order[start[r.group]] = int32(i)
		start[r.group]++
	}
}
