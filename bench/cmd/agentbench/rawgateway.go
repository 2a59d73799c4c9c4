package main

import (
	"bytes"
	"context"
	"fmt"

	"google.golang.org/grpc"
)

// The undecoded gateway: OTLP/gRPC logs requests taken as bytes (gRPC has decompressed them)
// and scanned for "seq=" and its 9 digits, which every record body of the workloads carries
// once; nothing else of a workload's records holds "seq=", but the attribute a parser copied
// the body's message into (workload.copies). An empty ExportLogsServiceResponse is zero bytes.

// rawMessage is a message kept as its encoded bytes.
type rawMessage struct{ b []byte }

// rawCodec hands the server's messages over as bytes, undecoded.
type rawCodec struct{}

func (rawCodec) Marshal(v any) ([]byte, error) {
	m, ok := v.(*rawMessage)
	if !ok {
		return nil, fmt.Errorf("rawCodec: cannot marshal %T", v)
	}
	return m.b, nil
}

func (rawCodec) Unmarshal(data []byte, v any) error {
	m, ok := v.(*rawMessage)
	if !ok {
		return fmt.Errorf("rawCodec: cannot unmarshal into %T", v)
	}
	m.b = data
	return nil
}

func (rawCodec) Name() string { return "proto" }

// rawLogsService is OTLP's LogsService with its one method, Export, served undecoded.
var rawLogsService = grpc.ServiceDesc{
	ServiceName: "opentelemetry.proto.collector.logs.v1.LogsService",
	HandlerType: (*any)(nil),
	Methods: []grpc.MethodDesc{{
		MethodName: "Export",
		Handler: func(srv any, _ context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
			var req rawMessage
			if err := dec(&req); err != nil {
				return nil, err
			}
			srv.(*gateway).record(scanSeqs(req.b))
			return &rawMessage{}, nil
		},
	}},
	Metadata: "opentelemetry/proto/collector/logs/v1/logs_service.proto",
}

// scanSeqs returns the seqs found in an encoded request.
func scanSeqs(b []byte) []int {
	seqs := make([]int, 0, bytes.Count(b, []byte("seq=")))
	for {
		i := bytes.Index(b, []byte("seq="))
		if i < 0 {
			return seqs
		}
		b = b[i+4:]
		if seq, ok := nineDigits(b); ok {
			seqs = append(seqs, seq)
		}
	}
}
