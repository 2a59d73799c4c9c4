package node

import (
	"compress/gzip"
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"google.golang.org/grpc"
)

// seqGateway is the gateway of the steady-state benchmark: OTLP logs over gRPC (the
// collectors' exporters) and over HTTP, protobuf or JSON (Fluent Bit's opentelemetry output),
// counting the arrivals of each line by its sequence_id, wherever the agent put it: in the body
// as the line's text (ours, file_log: json_parser keeps the body), in the body as a map
// (Fluent Bit: the record, its `log` parsed into it) or in the attributes.
type seqGateway struct {
	plogotlp.UnimplementedGRPCServer
	grpcSrv            *grpc.Server
	httpSrv            *http.Server
	grpcAddr, httpAddr string

	mu         sync.Mutex
	seen       []uint8 // arrivals by sequence_id, up to 255
	distinct   int     // sequence_ids seen at least once
	records    int
	unnumbered int       // records without a sequence_id
	last       time.Time // when the last record arrived
}

func startSeqGateway() (*seqGateway, error) {
	gl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	hl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		_ = gl.Close() // nothing listens on it yet
		return nil, err
	}
	g := &seqGateway{grpcAddr: gl.Addr().String(), httpAddr: hl.Addr().String(),
		grpcSrv: grpc.NewServer(grpc.MaxRecvMsgSize(64 << 20))}
	plogotlp.RegisterGRPCServer(g.grpcSrv, g)
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/logs", g.serveHTTP)
	g.httpSrv = &http.Server{Handler: mux, ReadHeaderTimeout: time.Minute}
	go func() { _ = g.grpcSrv.Serve(gl) }()
	go func() { _ = g.httpSrv.Serve(hl) }()
	return g, nil
}

func (g *seqGateway) stop() {
	g.grpcSrv.Stop()
	_ = g.httpSrv.Close() // its connections go with it
}

func (g *seqGateway) Export(_ context.Context, req plogotlp.ExportRequest) (plogotlp.ExportResponse, error) {
	g.add(req.Logs())
	return plogotlp.NewExportResponse(), nil
}

// serveHTTP answers OTLP/HTTP: a protobuf or JSON request, gzip-compressed or not.
func (g *seqGateway) serveHTTP(w http.ResponseWriter, r *http.Request) {
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = zr
	}
	data, err := io.ReadAll(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req := plogotlp.NewExportRequest()
	json := strings.HasPrefix(r.Header.Get("Content-Type"), "application/json")
	if json {
		err = req.UnmarshalJSON(data)
	} else {
		err = req.UnmarshalProto(data)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	g.add(req.Logs())
	resp := plogotlp.NewExportResponse()
	var out []byte
	if json {
		w.Header().Set("Content-Type", "application/json")
		out, err = resp.MarshalJSON()
	} else {
		w.Header().Set("Content-Type", "application/x-protobuf")
		out, err = resp.MarshalProto()
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	_, _ = w.Write(out) // the agent retries what it does not hear back about
}

func (g *seqGateway) add(ld plog.Logs) {
	g.mu.Lock()
	defer g.mu.Unlock()
	rls := ld.ResourceLogs()
	for i := range rls.Len() {
		sls := rls.At(i).ScopeLogs()
		for j := range sls.Len() {
			lrs := sls.At(j).LogRecords()
			for k := range lrs.Len() {
				g.count(lrs.At(k))
			}
		}
	}
	g.last = time.Now()
}

func (g *seqGateway) count(lr plog.LogRecord) {
	g.records++
	seq, ok := seqOfValue(lr.Body())
	if v, found := lr.Attributes().Get("sequence_id"); !ok && found {
		seq, ok = seqOfValue(v)
	}
	if !ok || seq < 0 {
		g.unnumbered++
		return
	}
	for len(g.seen) <= seq {
		g.seen = append(g.seen, make([]uint8, max(seq+1-len(g.seen), len(g.seen)))...)
	}
	if g.seen[seq] == 0 {
		g.distinct++
	}
	if g.seen[seq] < 255 {
		g.seen[seq]++
	}
}

// seqOfValue finds the sequence_id in a value: a number, a line of the workload, or a map
// holding either under sequence_id or log.
func seqOfValue(v pcommon.Value) (int, bool) {
	switch v.Type() {
	case pcommon.ValueTypeInt:
		return int(v.Int()), true
	case pcommon.ValueTypeDouble:
		return int(v.Double()), true
	case pcommon.ValueTypeStr:
		return seqOfLine(v.Str())
	case pcommon.ValueTypeMap:
		for _, key := range []string{"sequence_id", "log"} {
			if inner, ok := v.Map().Get(key); ok {
				return seqOfValue(inner)
			}
		}
	default:
	}
	return 0, false
}

// seqOfLine reads the sequence_id of a line of the workload.
func seqOfLine(line string) (int, bool) {
	const key = `"sequence_id":`
	i := strings.Index(line, key)
	if i < 0 {
		return 0, false
	}
	rest := line[i+len(key):]
	end := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' })
	if end < 0 {
		end = len(rest)
	}
	n, err := strconv.Atoi(rest[:end])
	return n, err == nil
}

// seqTally is what arrived of the lines written.
type seqTally struct {
	written, missing, duplicated, unnumbered, records int
}

// tally counts the lines of pods that never arrived or arrived more than once; written[i] is
// how many lines pod i wrote (sequence_id i, i+pods, …).
func (g *seqGateway) tally(written []int) seqTally {
	g.mu.Lock()
	defer g.mu.Unlock()
	t := seqTally{unnumbered: g.unnumbered, records: g.records}
	pods := len(written)
	for i, n := range written {
		t.written += n
		for k := range n {
			seq := i + k*pods
			switch {
			case seq >= len(g.seen) || g.seen[seq] == 0:
				t.missing++
			case g.seen[seq] > 1:
				t.duplicated += int(g.seen[seq]) - 1
			}
		}
	}
	return t
}

// arrived is how many distinct lines arrived, and when the last record did.
func (g *seqGateway) arrived() (int, time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.distinct, g.last
}
