package node

import (
	"bytes"
	"net/http"
	"testing"

	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
)

// The gateway finds a line's sequence_id wherever the agents put it, over OTLP/HTTP as Fluent
// Bit sends it, and counts lines lost and duplicated by it.
func TestSeqGateway(t *testing.T) {
	g, err := startSeqGateway()
	if err != nil {
		t.Fatal(err)
	}
	defer g.stop()
	ld := plog.NewLogs()
	lrs := ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords()
	lrs.AppendEmpty().Body().SetStr(`{"generated_at":1,"_msg":"Session expired","sequence_id":0,"level":"INFO"}`)
	lrs.AppendEmpty().Body().SetEmptyMap().PutInt("sequence_id", 1) // Fluent Bit's record
	lrs.AppendEmpty().Body().SetEmptyMap().PutStr("log", `{"sequence_id":3}`)
	lr := lrs.AppendEmpty()
	lr.Body().SetStr("no number")
	lr.Attributes().PutDouble("sequence_id", 3) // json_parser's attributes
	lrs.AppendEmpty().Body().SetStr("nothing")
	data, err := plogotlp.NewExportRequestFromLogs(ld).MarshalProto()
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post("http://"+g.httpAddr+"/v1/logs", "application/x-protobuf", bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close() // only its status is wanted
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %s", resp.Status)
	}
	// Two pods of two lines each: sequence_ids 0, 2 (pod 0) and 1, 3 (pod 1).
	got := g.tally([]int{2, 2})
	want := seqTally{written: 4, missing: 1, duplicated: 1, unnumbered: 1, records: 5}
	if got != want {
		t.Errorf("tally %+v, want %+v", got, want)
	}
}
