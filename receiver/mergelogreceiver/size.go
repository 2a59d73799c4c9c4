package mergelogreceiver

import (
	"go.opentelemetry.io/collector/pdata/plog"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/mergelog/otelcol-mergelog/receiver/mergelogreceiver/internal/metadata"
)

// groupSlack is what a resource group's encoding may still grow by once measured with no
// records: its length prefix in the batch (field tag and up to 5 bytes, not yet counted) and
// its scope's length prefix (measured at 1 byte, up to 5).
const groupSlack = 1 + 5 + 4

// sizer keeps batch.max_bytes a bound of the batch's encoded OTLP size — the uncompressed size
// a gRPC server's max_recv_msg_size checks — as records go in: each record's size with its
// field tag and length prefix, each resource group's resource and scope once, with no marshal.
// The bound is above the encoding by at most groupSlack bytes per resource group.
type sizer struct {
	m    plog.ProtoMarshaler
	next plog.LogRecord // the next record, filled to be measured before it goes in
	// The resource of a group not yet in the batch, measured before its record goes in.
	probeRL     plog.ResourceLogs
	probed      *resourceGroup
	probedBytes int
}

func newSizer() sizer {
	rl := plog.NewResourceLogs()
	rl.ScopeLogs().AppendEmpty().Scope().SetName(metadata.ScopeName)
	return sizer{next: plog.NewLogRecord(), probeRL: rl}
}

// record returns lr's encoded size as one of its scope's records.
func (z *sizer) record(lr plog.LogRecord) int {
	n := z.m.LogRecordSize(lr)
	return 1 + protowire.SizeVarint(uint64(n)) + n
}

// probe returns the encoded size of group g's resource and scope, as groupOf will count it.
func (z *sizer) probe(g *resourceGroup) int {
	g.attrs.CopyTo(z.probeRL.Resource().Attributes())
	z.probed, z.probedBytes = g, z.m.ResourceLogsSize(z.probeRL)+groupSlack
	return z.probedBytes
}

// groupOf returns the encoded size of g's ResourceLogs rl, just made with its scope and no
// records, with groupSlack.
func (z *sizer) groupOf(g *resourceGroup, rl plog.ResourceLogs) int {
	if g == z.probed {
		z.probed = nil
		return z.probedBytes
	}
	return z.m.ResourceLogsSize(rl) + groupSlack
}

// logs returns ld's encoded size.
func (z *sizer) logs(ld plog.Logs) int { return z.m.LogsSize(ld) }
