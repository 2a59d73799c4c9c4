// Package refusal sorts the next consumer's refusals into classes by what they are about, and
// delivers a batch under a policy that says what each class does: hold the batch (send it
// again until accepted), split it in halves down to the records refused, or drop it. The
// mergelog receiver and processor both deliver through it.
package refusal

import (
	"errors"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"go.opentelemetry.io/collector/consumer/consumererror"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Class is what a refusal is about.
type Class uint8

const (
	// Retryable is not a refusal for good: the batch is sent again as it is.
	Retryable Class = iota
	// Size: the batch (or a record) is larger than the next hop accepts.
	Size
	// Auth: not about the data: credentials, permissions, a wrong path (and hold_codes).
	Auth
	// Data: the next hop says the data is invalid.
	Data
	// Other: refused for good with no more said (Internal, Unknown, no status).
	Other
)

var classNames = [...]string{Retryable: "retryable", Size: "size", Auth: "auth", Data: "data", Other: "other"}

func (c Class) String() string { return classNames[c] }

// Classify says what err, a refusal by the next consumer, is about. A size refusal is told by
// its code and message, whether or not the exporter calls it permanent: the same batch never
// fits later. Otherwise the gRPC status code decides (otlp_http maps HTTP codes to gRPC ones:
// 400 InvalidArgument, 401 Unauthenticated, 403 PermissionDenied, 404 Unimplemented); a code
// in hold is Auth.
func (p *Policy) Classify(err error) Class {
	// FromError unwraps; without a status in the chain it says Unknown with err's text.
	st, hasStatus := status.FromError(err)
	if isSize(err, st) {
		return Size
	}
	if !consumererror.IsPermanent(err) {
		return Retryable
	}
	if !hasStatus {
		return Other
	}
	code := st.Code()
	switch {
	case p.holds(code):
		return Auth
	case code == codes.InvalidArgument:
		return Data
	}
	return Other
}

// isSize reports whether err says the data is too large: gRPC's message size limits
// (ResourceExhausted "... larger than max ..."), HTTP 413 (otlp_http: Unknown, "HTTP Status
// Code 413"), Kafka's MESSAGE_TOO_LARGE, or the exporter helper's batcher refusing a record
// over its max size.
func isSize(err error, st *status.Status) bool {
	if errors.Is(err, kerr.MessageTooLarge) {
		return true
	}
	msg := err.Error()
	switch st.Code() {
	case codes.ResourceExhausted:
		return strings.Contains(msg, "larger than max")
	case codes.Unknown:
		return strings.Contains(msg, "HTTP Status Code 413") ||
			strings.Contains(msg, "exceeds the max size limit") ||
			strings.Contains(msg, kerr.MessageTooLarge.Message)
	}
	return false
}
