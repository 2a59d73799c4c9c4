package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	// Registers the zstd and snappy gRPC compressors the collector's exporters use (gzip too).
	"go.opentelemetry.io/collector/component/componenttest"
	_ "go.opentelemetry.io/collector/config/configgrpc"
	"go.opentelemetry.io/collector/config/confighttp"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"google.golang.org/grpc"
)

// gateway is an OTLP/gRPC logs endpoint that stands in for the gateway collector: it accepts
// every request and tells each record by its seq, so a run knows when all arrived, which came
// twice, and how many bytes crossed the wire.
type gateway struct {
	plogotlp.UnimplementedGRPCServer
	srv      *grpc.Server
	addr     string // OTLP/gRPC
	httpSrv  *http.Server
	httpAddr string       // OTLP/HTTP
	wire     atomic.Int64 // request bytes as received (compressed)

	mu       sync.Mutex
	seen     []uint64 // bitmap of seqs
	unique   int
	total    int
	noSeq    int
	first    time.Time // when the first record arrived
	last     time.Time // when the last new record arrived
	started  chan struct{}
	complete chan struct{}
	want     int
	// copies is how often each record's seq is in a request scanned undecoded: more than once
	// where a parser copied the body's message into an attribute (seqs found ÷ copies are the
	// records); 1 when decoding, which looks at bodies only.
	copies int
	delay  time.Duration // added to every request: a slow gateway
	// decode unmarshals each request into pdata, as a gateway collector does; otherwise the
	// request's bytes are scanned for the records' seqs (see scanSeqs), so that on a machine of
	// two cores the stand-in takes less of the CPU the agent competes for.
	decode bool
}

func startGateway(decode bool) (*gateway, error) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	g := &gateway{addr: lis.Addr().String(), decode: decode}
	if decode {
		g.srv = grpc.NewServer(grpc.MaxRecvMsgSize(64 << 20))
		plogotlp.RegisterGRPCServer(g.srv, g)
	} else {
		g.srv = grpc.NewServer(grpc.MaxRecvMsgSize(64<<20), grpc.ForceServerCodec(rawCodec{}))
		g.srv.RegisterService(&rawLogsService, g)
	}
	go func() { _ = g.srv.Serve(countingListener{lis, &g.wire}) }()
	if err := g.startHTTP(); err != nil {
		g.srv.Stop()
		return nil, err
	}
	return g, nil
}

// startHTTP serves OTLP/HTTP logs as the gateway's otlp receiver does, decompressing each
// Content-Encoding the collector's HTTP server knows (gzip, zstd, snappy, lz4, …).
func (g *gateway) startHTTP() error {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	g.httpAddr = lis.Addr().String()
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/logs", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if !g.decode {
			g.record(scanSeqs(body))
			w.Header().Set("Content-Type", "application/x-protobuf")
			return // an empty ExportLogsServiceResponse
		}
		req := plogotlp.NewExportRequest()
		if err := req.UnmarshalProto(body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		resp, _ := g.Export(r.Context(), req)
		out, _ := resp.MarshalProto()
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	})
	sc := confighttp.NewDefaultServerConfig()
	sc.NetAddr.Endpoint = g.httpAddr
	srv, err := sc.ToServer(context.Background(), nil, componenttest.NewNopTelemetrySettings(), mux)
	if err != nil {
		return err
	}
	g.httpSrv = srv
	go func() { _ = srv.Serve(countingListener{lis, &g.wire}) }()
	return nil
}

// expect resets the counts for a run that must deliver want records, each carrying its seq
// copies times (see gateway.copies).
func (g *gateway) expect(want, copies int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.seen = make([]uint64, want/64+1)
	g.unique, g.total, g.noSeq, g.want = 0, 0, 0, want
	g.copies = 1
	if !g.decode && copies > 1 {
		g.copies = copies
	}
	g.started = make(chan struct{})
	g.complete = make(chan struct{})
	g.wire.Store(0)
}

// Export scans the request's bodies outside the lock and records what it found under it, so
// that concurrent requests cost the agent no waiting beyond the scan itself.
func (g *gateway) Export(_ context.Context, req plogotlp.ExportRequest) (plogotlp.ExportResponse, error) {
	if g.delay > 0 {
		time.Sleep(g.delay)
	}
	seqs := make([]int, 0, req.Logs().LogRecordCount())
	noSeq := 0
	for _, rl := range req.Logs().ResourceLogs().All() {
		for _, sl := range rl.ScopeLogs().All() {
			for _, lr := range sl.LogRecords().All() {
				// AsString: Fluent Bit's body is its record, a map holding the line as "log".
				if seq, ok := seqOf(lr.Body().AsString()); ok {
					seqs = append(seqs, seq)
				} else {
					noSeq++
				}
			}
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.total += len(seqs) + noSeq
	g.noSeq += noSeq
	for _, seq := range seqs {
		g.count(seq)
	}
	return plogotlp.NewExportResponse(), nil
}

// record counts the seqs of a request scanned undecoded.
func (g *gateway) record(seqs []int) {
	if g.delay > 0 {
		time.Sleep(g.delay)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.total += len(seqs)
	for _, seq := range seqs {
		g.count(seq)
	}
}

// seqOf reads the 9 digits after "seq=".
func seqOf(body string) (int, bool) {
	i := strings.Index(body, "seq=")
	if i < 0 {
		return 0, false
	}
	return nineDigits(body[i+4:])
}

// nineDigits reads the number in the first 9 bytes of s.
func nineDigits[S string | []byte](s S) (int, bool) {
	if len(s) < 9 {
		return 0, false
	}
	seq := 0
	for i := range 9 {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		seq = seq*10 + int(c-'0')
	}
	return seq, true
}

func (g *gateway) count(seq int) {
	if seq >= g.want {
		g.noSeq++
		return
	}
	if g.seen[seq/64]&(1<<(seq%64)) != 0 {
		return
	}
	g.seen[seq/64] |= 1 << (seq % 64)
	g.unique++
	g.last = time.Now()
	if g.unique == 1 {
		g.first = g.last
		close(g.started)
	}
	if g.unique == g.want {
		close(g.complete)
	}
}

// counts returns the records received, distinct, and without a seq of the workload.
func (g *gateway) counts() (total, unique, noSeq int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.total / g.copies, g.unique, g.noSeq
}

func (g *gateway) stop() {
	g.srv.Stop()
	_ = g.httpSrv.Close()
}

// countingListener counts the bytes its connections read: what the agent sent, as it crossed
// the wire (framing and headers included).
type countingListener struct {
	net.Listener
	n *atomic.Int64
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return countingConn{c, l.n}, nil
}

type countingConn struct {
	net.Conn
	n *atomic.Int64
}

func (c countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.n.Add(int64(n))
	return n, err
}
