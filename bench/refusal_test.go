package bench

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/kafkaexporter"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/exporter/exportertest"
	"go.opentelemetry.io/collector/exporter/otlpexporter"
	"go.opentelemetry.io/collector/exporter/otlphttpexporter"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mergelog/otelcol-mergelog/internal/refusal"
)

// The classification of refusals is checked on the errors the collector's own exporters
// return against real servers on loopback: otlp (gRPC) against a gRPC server answering status
// codes or refusing a message over its size limit, otlp_http against an HTTP server answering
// status codes, kafka against kfake with a record over the producer's max_message_bytes.

// logsOf returns one record with a body of n bytes.
func logsOf(n int) plog.Logs {
	ld := plog.NewLogs()
	ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords().AppendEmpty().Body().SetStr(strings.Repeat("x", n))
	return ld
}

// export sends ld with the exporter f makes of conf (no queue, no retries: the error comes
// back from ConsumeLogs) and returns its error.
func export(t *testing.T, f exporter.Factory, conf map[string]any, ld plog.Logs) error {
	t.Helper()
	ctx := context.Background()
	conf["sending_queue"] = map[string]any{"enabled": false}
	conf["retry_on_failure"] = map[string]any{"enabled": false}
	cfg := f.CreateDefaultConfig()
	require.NoError(t, confmap.NewFromStringMap(conf).Unmarshal(cfg))
	exp, err := f.CreateLogs(ctx, exportertest.NewNopSettings(f.Type()), cfg)
	require.NoError(t, err)
	require.NoError(t, exp.Start(ctx, componenttest.NewNopHost()))
	defer func() { assert.NoError(t, exp.Shutdown(ctx)) }()
	return exp.ConsumeLogs(ctx, ld)
}

// otlpServer answers each export with the error answer gives.
type otlpServer struct {
	plogotlp.UnimplementedGRPCServer
	answer error
}

func (s *otlpServer) Export(context.Context, plogotlp.ExportRequest) (plogotlp.ExportResponse, error) {
	return plogotlp.NewExportResponse(), s.answer
}

// startGRPC serves OTLP on loopback with a receive limit of maxRecv bytes.
func startGRPC(t *testing.T, answer error, maxRecv int) string {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := grpc.NewServer(grpc.MaxRecvMsgSize(maxRecv))
	plogotlp.RegisterGRPCServer(srv, &otlpServer{answer: answer})
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	return lis.Addr().String()
}

func TestClassifiesOTLPGRPCExporterRefusals(t *testing.T) {
	policy := refusal.DefaultPolicy()
	for _, c := range []struct {
		answer error
		want   refusal.Class
	}{
		{status.Error(codes.Unauthenticated, "token rotated"), refusal.Auth},
		{status.Error(codes.PermissionDenied, "not for this tenant"), refusal.Auth},
		{status.Error(codes.Unimplemented, "no logs service here"), refusal.Auth},
		{status.Error(codes.InvalidArgument, "bad record"), refusal.Data},
		{status.Error(codes.Internal, "the gateway's pipeline refused"), refusal.Other},
		{status.Error(codes.ResourceExhausted, "quota"), refusal.Other},
		{status.Error(codes.Unavailable, "restarting"), refusal.Retryable},
	} {
		t.Run(status.Code(c.answer).String(), func(t *testing.T) {
			addr := startGRPC(t, c.answer, 4<<20)
			err := export(t, otlpexporter.NewFactory(), map[string]any{"endpoint": addr, "tls": map[string]any{"insecure": true}}, logsOf(10))
			require.Error(t, err)
			assert.Equal(t, c.want, policy.Classify(err), "%v", err)
		})
	}
	t.Run("over max_recv_msg_size", func(t *testing.T) {
		addr := startGRPC(t, nil, 1024)
		err := export(t, otlpexporter.NewFactory(), map[string]any{"endpoint": addr, "tls": map[string]any{"insecure": true}}, logsOf(4096))
		require.Error(t, err)
		assert.Equal(t, refusal.Size, policy.Classify(err), "%v", err)
	})
	t.Run("over max_recv_msg_size, compressed", func(t *testing.T) {
		addr := startGRPC(t, nil, 1024)
		err := export(t, otlpexporter.NewFactory(), map[string]any{"endpoint": addr, "tls": map[string]any{"insecure": true}, "compression": "gzip"}, logsOf(4096))
		require.Error(t, err)
		assert.Equal(t, refusal.Size, policy.Classify(err), "%v", err)
	})
}

func TestClassifiesOTLPHTTPExporterRefusals(t *testing.T) {
	policy := refusal.DefaultPolicy()
	for _, c := range []struct {
		code int
		want refusal.Class
	}{
		{http.StatusBadRequest, refusal.Data},
		{http.StatusUnauthorized, refusal.Auth},
		{http.StatusForbidden, refusal.Auth},
		{http.StatusNotFound, refusal.Auth},
		{http.StatusRequestEntityTooLarge, refusal.Size},
		{http.StatusInternalServerError, refusal.Other},
		{http.StatusServiceUnavailable, refusal.Retryable},
	} {
		t.Run(fmt.Sprint(c.code), func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				http.Error(w, http.StatusText(c.code), c.code)
			}))
			defer srv.Close()
			err := export(t, otlphttpexporter.NewFactory(), map[string]any{"logs_endpoint": srv.URL + "/v1/logs"}, logsOf(10))
			require.Error(t, err)
			assert.Equal(t, c.want, policy.Classify(err), "%v", err)
		})
	}
}

func TestClassifiesKafkaExporterMessageTooLarge(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "logs"))
	require.NoError(t, err)
	defer c.Close()
	conf := map[string]any{
		"brokers":  c.ListenAddrs(),
		"logs":     map[string]any{"topic": "logs"},
		"producer": map[string]any{"max_message_bytes": 2048},
		"timeout":  10 * time.Second,
	}
	policy := refusal.DefaultPolicy()
	require.NoError(t, export(t, kafkaexporter.NewFactory(), conf, logsOf(100)), "a record that fits is produced")
	err = export(t, kafkaexporter.NewFactory(), conf, logsOf(8192))
	require.Error(t, err)
	assert.Equal(t, refusal.Size, policy.Classify(err), "%v", err)
}
