package refusal

import (
	"fmt"
	"strings"

	"google.golang.org/grpc/codes"
)

// Action is what a class of refusal does to the batch refused.
type Action string

const (
	// Hold sends the batch again, with backoff, until the next consumer accepts it.
	Hold Action = "hold"
	// Split sends the batch again in halves, each half on its own, down to single records; a
	// single record refused is dropped.
	Split Action = "split"
	// SplitThenHold splits as Split, but when both halves are refused as well the refusal
	// is taken as not about the data: the batch is held. So is a batch of one record, which
	// has no halves to tell.
	SplitThenHold Action = "split_then_hold"
	// Drop drops the batch (what file_log does with any refusal for good).
	Drop Action = "drop"
)

// Policy is the on_refusal section: the action of each class of refusal for good.
type Policy struct {
	Size  Action `mapstructure:"size"`
	Auth  Action `mapstructure:"auth"`
	Data  Action `mapstructure:"data"`
	Other Action `mapstructure:"other"`
	// HoldCodes are gRPC status codes (e.g. FailedPrecondition or FAILED_PRECONDITION) whose
	// refusals are taken as not about the data, like Unauthenticated, PermissionDenied and
	// Unimplemented: class auth.
	HoldCodes []string `mapstructure:"hold_codes"`
}

// DefaultPolicy drops nothing for a refusal that is not about it: a batch too large is split
// down to the records too large, one the next hop cannot take now (credentials, permissions,
// a wrong path) is held, one with invalid data is split down to the records refused, and one
// refused for an unknown reason is split unless both halves are refused too, then held.
func DefaultPolicy() Policy {
	return Policy{Size: Split, Auth: Hold, Data: Split, Other: SplitThenHold}
}

// Action returns what a refusal of class c does.
func (p *Policy) Action(c Class) Action {
	switch c {
	case Size:
		return p.Size
	case Auth:
		return p.Auth
	case Data:
		return p.Data
	case Other:
		return p.Other
	}
	return Hold // retryable
}

// holds reports whether a refusal with code is not about the data.
func (p *Policy) holds(code codes.Code) bool {
	switch code {
	case codes.Unauthenticated, codes.PermissionDenied, codes.Unimplemented:
		return true
	}
	for _, name := range p.HoldCodes {
		if c, ok := codeNamed(name); ok && c == code {
			return true
		}
	}
	return false
}

// codeNamed returns the gRPC code named name, as Go spells it (FailedPrecondition) or as
// the protocol does (FAILED_PRECONDITION), in any case.
func codeNamed(name string) (codes.Code, bool) {
	want := strings.ReplaceAll(name, "_", "")
	for c := codes.Canceled; c <= codes.Unauthenticated; c++ {
		if strings.EqualFold(c.String(), want) {
			return c, true
		}
	}
	return 0, false
}

// Validate names the key at fault, relative to on_refusal.
func (p *Policy) Validate() error {
	for _, a := range []struct {
		key    string
		action Action
	}{{"size", p.Size}, {"auth", p.Auth}, {"data", p.Data}, {"other", p.Other}} {
		switch a.action {
		case Hold, Split, SplitThenHold, Drop:
		default:
			return fmt.Errorf("%s: %q is not one of hold, split, split_then_hold, drop", a.key, a.action)
		}
	}
	for _, name := range p.HoldCodes {
		if _, ok := codeNamed(name); !ok {
			return fmt.Errorf("hold_codes: %q is not a gRPC status code name (e.g. FailedPrecondition)", name)
		}
	}
	return nil
}
