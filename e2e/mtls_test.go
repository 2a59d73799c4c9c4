package e2e

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

// The mTLS component's files: merged over the agent's and the gateway's configs, their TLS
// files under /etc/otelcol-tls (the Secrets' mount).
const (
	agentMTLS   = "../deploy/kubernetes/components/mtls/agent-mtls.yaml"
	gatewayMTLS = "../deploy/kubernetes/components/mtls/gateway-mtls.yaml"
	tlsMount    = "/etc/otelcol-tls/"
	// gatewayName is the name the agents verify (the files' server_name_override), which the
	// gateways' certificate holds.
	gatewayName = "otelcol-gateway.otelcol.svc"
)

// testCA is a certificate authority the test makes.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte
}

func newCA(t *testing.T, name string) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return &testCA{cert, key, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

// issue makes a certificate of the CA for a server (with the DNS name) or a client (name "").
func (ca *testCA) issue(t *testing.T, cn, dnsName string) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: cn},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	if dnsName != "" {
		tmpl.DNSNames, tmpl.ExtKeyUsage = []string{dnsName}, []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
}

// secretDir writes a Secret's three keys (cert-manager's layout) into a directory of its own.
func secretDir(t *testing.T, certPEM, keyPEM, caPEM []byte) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range map[string][]byte{"tls.crt": certPEM, "tls.key": keyPEM, "ca.crt": caPEM} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// mountedAt is a component's file with its TLS files moved from the Secret's mount to dir.
func mountedAt(t *testing.T, component, dir string) string {
	t.Helper()
	data, err := os.ReadFile(component)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), tlsMount) {
		t.Fatalf("%s reads nothing under %s", component, tlsMount)
	}
	return testkit.WriteFile(t, filepath.Join(t.TempDir(), filepath.Base(component)), strings.ReplaceAll(string(data), tlsMount, dir+"/"))
}

// startTLSGateway runs the shipped gateway with the mTLS component's file, its Secret in dir,
// exporting to out.
func startTLSGateway(t *testing.T, port, promPort int, dir, out string) *collector {
	t.Helper()
	root := t.TempDir()
	gw := startCollector(t, append(shippedGateway(t, root, port, fileExport(out, promPort)), mountedAt(t, gatewayMTLS, dir))...)
	logOnFailure(t, "gateway "+filepath.Base(out), gw)
	return gw
}

// hasSeries reports whether a scrape holds a series of the metric name.
func hasSeries(m metrics, name string) bool {
	for k := range m {
		if n, _, _ := strings.Cut(k, "{"); n == name {
			return true
		}
	}
	return false
}

// The shipped agent and gateway with components/mtls and certificates of two CAs the test makes
// (the gateways' and the agents'): an agent facing a gateway whose certificate another CA signed
// refuses it (the TLS error logged), delivers nothing and drops nothing; once the real gateway
// takes its port, every entry arrives once. A client without a certificate, or with one of
// another CA, is refused by the gateway; the agent's certificate is accepted.
func TestMTLS(t *testing.T) {
	needCollector(t)
	refusalEnv(t)
	gwCA, agentCA, otherCA := newCA(t, "gateways"), newCA(t, "agents"), newCA(t, "impostor")
	gwCert, gwKey := gwCA.issue(t, "otelcol-gateway", gatewayName)
	impCert, impKey := otherCA.issue(t, "otelcol-gateway", gatewayName)
	agentCert, agentKey := agentCA.issue(t, "otelcol-agent", "")
	gwDir := secretDir(t, gwCert, gwKey, agentCA.pem)
	impostorDir := secretDir(t, impCert, impKey, agentCA.pem) // it would take the agent's certificate
	agentDir := secretDir(t, agentCert, agentKey, gwCA.pem)

	root := t.TempDir()
	want := writeEntries(t, root, "e", []struct{ size, n int }{{200, 500}, {3 << 10, 100}})
	port, agentProm, impProm, gwProm := freePort(t), freePort(t), freePort(t), freePort(t)
	impostorOut, out := filepath.Join(root, "impostor.jsonl"), filepath.Join(root, "gateway.jsonl")

	impostor := startTLSGateway(t, port, impProm, impostorDir, impostorOut)
	agent := startCollector(t, append(shippedAgent(t, root, port, "snappy", agentProm), mountedAt(t, agentMTLS, agentDir))...)
	logOnFailure(t, "agent", agent)
	testkit.WaitUntil(t, 2*time.Minute, "the agent's TLS error about the impostor's certificate", func() bool {
		return strings.Contains(agent.out.String(), "x509: certificate signed by unknown authority")
	})
	m := scrape(t, agentProm)
	if n := len(readRecords(t, impostorOut)); n != 0 {
		t.Errorf("the impostor gateway received %d records", n)
	}
	for _, class := range []string{"size", "auth", "data", "other"} {
		if n := droppedRecords(m, class); n != 0 {
			t.Errorf("the agent dropped %v records (%s) facing the impostor", n, class)
		}
	}
	impostor.stop(t)

	startTLSGateway(t, port, gwProm, gwDir, out)
	var recs []plog.LogRecord
	testkit.WaitUntil(t, 3*time.Minute, "every entry at the real gateway", func() bool {
		recs = readRecords(t, out)
		return len(recs) >= len(want)
	})
	checkOnce(t, arrived(t, recs, want), want)
	testkit.WaitUntil(t, time.Minute, "the agent's checkpoint writes served, a bool attribute as its label", func() bool {
		return scrape(t, agentProm).sum("otelcol_receiver_mergelog_checkpoint_writes", `failed="false"`) > 0
	})
	// The names the dashboard and the alerts use (deploy/observability), as this endpoint
	// serves them: ours and the collector's (a series appears once its instrument recorded).
	for _, name := range []string{"otelcol_receiver_mergelog_bytes_read", "otelcol_receiver_mergelog_files_open", "otelcol_receiver_mergelog_read_lag", "otelcol_exporter_in_flight_requests"} {
		testkit.WaitUntil(t, time.Minute, "the agent's series "+name, func() bool { return hasSeries(scrape(t, agentProm), name) })
	}
	if !hasSeries(scrape(t, gwProm), "otelcol_receiver_accepted_log_records") {
		t.Error("the gateway serves no series otelcol_receiver_accepted_log_records")
	}

	otherCert, otherKey := otherCA.issue(t, "stranger", "")
	for _, tc := range []struct {
		name      string
		cert, key []byte
		refused   bool
	}{
		{"no certificate", nil, nil, true},
		{"another CA's certificate", otherCert, otherKey, true},
		{"the agents' certificate", agentCert, agentKey, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := exportOnce(t, port, gwCA, tc.cert, tc.key)
			if tc.refused && err == nil {
				t.Error("the gateway accepted the export")
			}
			if !tc.refused && err != nil {
				t.Errorf("refused: %v", err)
			}
		})
	}
}

// exportOnce sends one record to the gateway over TLS, verifying it with ca, presenting the
// certificate if one is given, and returns the export's error.
func exportOnce(t *testing.T, port int, ca *testCA, certPEM, keyPEM []byte) error {
	t.Helper()
	roots := x509.NewCertPool()
	roots.AddCert(ca.cert)
	cfg := &tls.Config{RootCAs: roots, ServerName: gatewayName, MinVersion: tls.VersionTLS13}
	if certPEM != nil {
		pair, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	conn, err := grpc.NewClient(fmt.Sprintf("127.0.0.1:%d", port), grpc.WithTransportCredentials(credentials.NewTLS(cfg)))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()
	ld := plog.NewLogs()
	ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords().AppendEmpty().Body().SetStr("probe")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = plogotlp.NewGRPCClient(conn).Export(ctx, plogotlp.NewExportRequestFromLogs(ld))
	return err
}
