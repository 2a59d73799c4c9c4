package bench

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/receiver"

	"github.com/mergelog/otelcol-mergelog/bench/internal/rig"
	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

// record is what the tests compare of a log record.
type record struct {
	file     string // log.file.name
	body     string
	time     string // Timestamp
	stream   string // log.iostream
	resource string // the k8s.* resource attributes, k=v sorted, values as strings
}

// recordsOf extracts the records of ld.
func recordsOf(ld plog.Logs) []record {
	var out []record
	rls := ld.ResourceLogs()
	for i := range rls.Len() {
		var k8s []string
		rls.At(i).Resource().Attributes().Range(func(k string, v pcommon.Value) bool {
			if strings.HasPrefix(k, "k8s.") {
				k8s = append(k8s, k+"="+v.AsString())
			}
			return true
		})
		slices.Sort(k8s)
		resource := strings.Join(k8s, " ")
		sls := rls.At(i).ScopeLogs()
		for j := range sls.Len() {
			lrs := sls.At(j).LogRecords()
			for k := range lrs.Len() {
				lr := lrs.At(k)
				name, _ := lr.Attributes().Get("log.file.name")
				r := record{file: name.AsString(), body: lr.Body().AsString(), time: lr.Timestamp().String(),
					resource: resource}
				if stream, ok := lr.Attributes().Get("log.iostream"); ok {
					r.stream = stream.AsString()
				}
				out = append(out, r)
			}
		}
	}
	return out
}

// records returns what the tests compare of the records s accepted, in delivery order.
func records(s *testkit.LogsSink) []record {
	var out []record
	for _, ld := range s.Batches() {
		out = append(out, recordsOf(ld)...)
	}
	return out
}

// start starts rcv with keys on host and shuts it down when the test ends (again: a second
// Shutdown is a no-op for both receivers).
func start(t *testing.T, rcv rig.Receiver, keys map[string]any, next consumer.Logs, host component.Host) receiver.Logs {
	t.Helper()
	r, err := rcv.Start(t.Context(), keys, next, host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := r.Shutdown(context.Background()); err != nil {
			t.Error(err)
		}
	})
	return r
}

// inOrder is keys for mergelog with one batch in flight: several in flight reach the sink in
// the order their deliveries end, and the differential tests compare each file's records in
// order.
func inOrder(keys map[string]any) map[string]any {
	k := maps.Clone(keys)
	k["batch"] = map[string]any{"max_in_flight": 1}
	return k
}

// waitQuiet waits until s has records and has received no more for quiet, a time longer than
// the receivers' flush and poll periods, so that everything they were going to send is in.
func waitQuiet(t *testing.T, s *testkit.LogsSink, quiet, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	n, since := -1, time.Now()
	for {
		if m := s.RecordCount(); m != n {
			n, since = m, time.Now()
		} else if n > 0 && time.Since(since) >= quiet {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for records to stop arriving (have %d)", timeout, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitSame waits until a and b have received the same number of records and neither has
// received more for quiet, a time longer than the receivers' flush and poll periods. After
// timeout it returns anyway, for the caller to show how they differ.
func waitSame(a, b *testkit.LogsSink, quiet, timeout time.Duration) {
	deadline := time.Now().Add(timeout)
	na, nb, since := -1, -1, time.Now()
	for time.Now().Before(deadline) {
		if ma, mb := a.RecordCount(), b.RecordCount(); ma != na || mb != nb {
			na, nb, since = ma, mb, time.Now()
		} else if na == nb && na > 0 && time.Since(since) >= quiet {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// firstDiff describes where got first differs from want, or returns "".
func firstDiff[T comparable](want, got []T) string {
	for i := range min(len(want), len(got)) {
		if want[i] != got[i] {
			return fmt.Sprintf("item %d:\n want %q\n  got %q", i, any(want[i]), any(got[i]))
		}
	}
	if len(want) != len(got) {
		return fmt.Sprintf("%d items, want %d", len(got), len(want))
	}
	return ""
}
