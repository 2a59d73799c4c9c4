package mergelogprocessor

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.opentelemetry.io/collector/pdata/plog"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

func hasBody(ld plog.Logs, body string) bool { return slices.Contains(testkit.BodiesOf(ld), body) }

// A record the next consumer refuses as invalid is dropped alone and counted; the records
// around it go out in order.
func TestDataRefusalDropsOnlyThatRecord(t *testing.T) {
	sink := &testkit.LogsSink{Answer: func(_ context.Context, _ int, ld plog.Logs) error {
		if hasBody(ld, "node-a@20") {
			return consumererror.NewPermanent(status.Error(codes.InvalidArgument, "invalid record"))
		}
		return nil
	}}
	h := startHarness(t, testConfig(), sink, nil)
	h.open("web", "node-a")
	h.send("web", "node-a", 10, 20, 30)
	assert.Equal(t, bodies("node-a@10 node-a@30"), h.delivered())
	assert.EqualValues(t, 1, h.sum("records_dropped"))
}

// A refusal not about the data holds the batch, and what comes after it, until accepted:
// nothing is dropped.
func TestAuthRefusalHoldsInOrder(t *testing.T) {
	var refusals atomic.Int32
	sink := &testkit.LogsSink{Answer: func(_ context.Context, _ int, ld plog.Logs) error {
		if hasBody(ld, "node-a@10") && refusals.Add(1) <= 3 {
			return consumererror.NewPermanent(status.Error(codes.PermissionDenied, "tenant key revoked"))
		}
		return nil
	}}
	h := startHarness(t, testConfig(), sink, nil)
	h.open("web", "node-a")
	h.send("web", "node-a", 10)
	h.send("web", "node-a", 20)
	assert.Equal(t, bodies("node-a@10 node-a@20"), h.delivered())
	assert.Zero(t, h.sum("records_dropped"))
	assert.EqualValues(t, 3, h.sum("consume_retries"))
}
