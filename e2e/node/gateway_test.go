package node

import (
	"context"
	"net"
	"sync"
	"time"

	// Registers the snappy and zstd gRPC compressors the agent's exporter may use.
	_ "go.opentelemetry.io/collector/config/configgrpc"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"google.golang.org/grpc"
)

// gateway is an OTLP/gRPC logs endpoint standing in for the gateway collector of one agent: it
// accepts every request and counts, per line of every container, the records that carried it
// whole and those that carried a piece of it.
type gateway struct {
	plogotlp.UnimplementedGRPCServer
	srv  *grpc.Server
	addr string

	// keep, when set, takes each record instead of the line counts (under mu).
	keep func(res pcommon.Map, lr plog.LogRecord)

	mu        sync.Mutex
	lines     map[string]*lineCounts // by container
	records   int
	malformed int       // records that are no line and no piece of one
	last      time.Time // when the last record arrived
}

// lineCounts are one container's lines' arrivals, by seq.
type lineCounts struct {
	whole, pieces []uint16
}

// startGateway starts a gateway that counts the lines of runNode's apps or, with keep, gives
// keep each record.
func startGateway(keep func(res pcommon.Map, lr plog.LogRecord)) (*gateway, error) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	g := &gateway{keep: keep, addr: lis.Addr().String(), lines: map[string]*lineCounts{}, srv: grpc.NewServer(grpc.MaxRecvMsgSize(64 << 20))}
	plogotlp.RegisterGRPCServer(g.srv, g)
	go func() { _ = g.srv.Serve(lis) }()
	return g, nil
}

func (g *gateway) stop() { g.srv.Stop() }

func (g *gateway) Export(_ context.Context, req plogotlp.ExportRequest) (plogotlp.ExportResponse, error) {
	rls := req.Logs().ResourceLogs()
	g.mu.Lock()
	defer g.mu.Unlock()
	for i := range rls.Len() {
		sls := rls.At(i).ScopeLogs()
		for j := range sls.Len() {
			lrs := sls.At(j).LogRecords()
			for k := range lrs.Len() {
				if g.keep != nil {
					g.keep(rls.At(i).Resource().Attributes(), lrs.At(k))
				} else {
					g.count(lrs.At(k).Body().AsString())
				}
			}
		}
	}
	g.last = time.Now()
	return plogotlp.NewExportResponse(), nil
}

func (g *gateway) count(body string) {
	g.records++
	if id, ok := parseWhole(body); ok {
		g.at(id).whole[id.seq]++
		return
	}
	if id, ok := parsePiece(body); ok {
		g.at(id).pieces[id.seq]++
		return
	}
	g.malformed++
}

// at returns the counts of id's container, grown to hold id.
func (g *gateway) at(id lineID) *lineCounts {
	lc := g.lines[id.container]
	if lc == nil {
		lc = &lineCounts{}
		g.lines[id.container] = lc
	}
	for len(lc.whole) <= id.seq {
		lc.whole = append(lc.whole, 0)
		lc.pieces = append(lc.pieces, 0)
	}
	return lc
}

// tally is what arrived of the lines written, written[c] lines by container c.
type tally struct {
	written, missing, duplicated, split int
	malformed, records                  int
	missingRuns, duplicatedRuns         []lineRun // those lines, as runs of consecutive seqs
	splitRuns                           []lineRun
}

// lineRun is lines first..last of one container.
type lineRun struct {
	container   string
	first, last int
}

// tally counts the lines written that never arrived, arrived more than once whole, or arrived
// in pieces only (split).
func (g *gateway) tally(written map[string]int) tally {
	g.mu.Lock()
	defer g.mu.Unlock()
	t := tally{malformed: g.malformed, records: g.records}
	for c, n := range written {
		t.written += n
		lc := g.lines[c]
		if lc == nil {
			lc = &lineCounts{}
		}
		for seq := range n {
			var whole, pieces uint16
			if seq < len(lc.whole) {
				whole, pieces = lc.whole[seq], lc.pieces[seq]
			}
			switch {
			case whole > 1:
				t.duplicated += int(whole) - 1
				t.duplicatedRuns = addRun(t.duplicatedRuns, c, seq)
			case whole == 1:
			case pieces > 0:
				t.split++
				t.splitRuns = addRun(t.splitRuns, c, seq)
			default:
				t.missing++
				t.missingRuns = addRun(t.missingRuns, c, seq)
			}
		}
	}
	return t
}

// addRun adds line seq of container c to runs, extending the last run if seq follows it.
func addRun(runs []lineRun, c string, seq int) []lineRun {
	if n := len(runs); n > 0 && runs[n-1].container == c && runs[n-1].last == seq-1 {
		runs[n-1].last = seq
		return runs
	}
	return append(runs, lineRun{c, seq, seq})
}

// complete reports whether every line written arrived (whole or in pieces), and when the last
// record arrived.
func (g *gateway) complete(written map[string]int) (bool, time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for c, n := range written {
		lc := g.lines[c]
		if lc == nil || len(lc.whole) < n {
			return false, g.last
		}
		for seq := range n {
			if lc.whole[seq] == 0 && lc.pieces[seq] == 0 {
				return false, g.last
			}
		}
	}
	return true, g.last
}
