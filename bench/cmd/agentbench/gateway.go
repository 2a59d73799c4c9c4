package main

import (
	"bytes"
	"context"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	// Registers the zstd and snappy gRPC compressors the collector's exporters use (gzip too).
	_ "go.opentelemetry.io/collector/config/configgrpc"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/stats"
)

// gateway is an OTLP/gRPC logs endpoint that stands in for the gateway collector: it accepts
// every request and tells each record by its seq, so a run knows when all arrived, which came
// twice, and how many bytes crossed the wire.
type gateway struct {
	plogotlp.UnimplementedGRPCServer
	srv  *grpc.Server
	addr string
	wire atomic.Int64 // request bytes as received (compressed)

	mu       sync.Mutex
	seen     []uint64 // bitmap of seqs
	unique   int
	total    int
	noSeq    int
	last     time.Time // when the last new record arrived
	complete chan struct{}
	want     int
}

func startGateway() (*gateway, error) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	g := &gateway{addr: lis.Addr().String()}
	g.srv = grpc.NewServer(grpc.StatsHandler(wireCounter{&g.wire}), grpc.MaxRecvMsgSize(64<<20))
	plogotlp.RegisterGRPCServer(g.srv, g)
	go func() { _ = g.srv.Serve(lis) }()
	return g, nil
}

// expect resets the counts for a run that must deliver want records.
func (g *gateway) expect(want int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.seen = make([]uint64, want/64+1)
	g.unique, g.total, g.noSeq, g.want = 0, 0, 0, want
	g.complete = make(chan struct{})
	g.wire.Store(0)
}

var seqKey = []byte("seq=")

func (g *gateway) Export(_ context.Context, req plogotlp.ExportRequest) (plogotlp.ExportResponse, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, rl := range req.Logs().ResourceLogs().All() {
		for _, sl := range rl.ScopeLogs().All() {
			for _, lr := range sl.LogRecords().All() {
				g.total++
				g.count(lr.Body().AsString())
			}
		}
	}
	return plogotlp.NewExportResponse(), nil
}

func (g *gateway) count(body string) {
	b := []byte(body)
	i := bytes.Index(b, seqKey)
	if i < 0 || len(b) < i+13 {
		g.noSeq++
		return
	}
	seq, err := strconv.Atoi(string(b[i+4 : i+13]))
	if err != nil || seq >= g.want {
		g.noSeq++
		return
	}
	if g.seen[seq/64]&(1<<(seq%64)) != 0 {
		return
	}
	g.seen[seq/64] |= 1 << (seq % 64)
	g.unique++
	g.last = time.Now()
	if g.unique == g.want {
		close(g.complete)
	}
}

// counts returns the records received, distinct, and without a seq of the workload.
func (g *gateway) counts() (total, unique, noSeq int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.total, g.unique, g.noSeq
}

func (g *gateway) stop() { g.srv.Stop() }

// wireCounter adds up the payload bytes of requests as they crossed the wire.
type wireCounter struct{ n *atomic.Int64 }

func (wireCounter) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context   { return ctx }
func (wireCounter) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context { return ctx }
func (wireCounter) HandleConn(context.Context, stats.ConnStats)                       {}
func (w wireCounter) HandleRPC(_ context.Context, s stats.RPCStats) {
	if p, ok := s.(*stats.InPayload); ok {
		w.n.Add(int64(p.CompressedLength))
	}
}
