package mergelogprocessor // import "github.com/mergelog/otelcol-mergelog/processor/mergelogprocessor"

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"go.opentelemetry.io/collector/component"

	"github.com/mergelog/otelcol-mergelog/internal/refusal"
)

// Config defines the configuration of the mergelog processor.
type Config struct {
	// MergeKey lists the resource attributes whose values name a merge group: records are
	// ordered by time within a group, groups are independent. Records whose resource has none
	// of them form one group.
	MergeKey []string `mapstructure:"merge_key"`

	// SourceAttributes names a record's source, one watermark each: the first of these resource
	// attributes the resource has. Records whose resource has none are one source.
	SourceAttributes []string `mapstructure:"source_attributes"`

	// MaxDelay is the longest a record waits for the other sources of its group.
	MaxDelay time.Duration `mapstructure:"max_delay"`

	// IdleTimeout is how long a source may send nothing before it stops holding back the
	// other sources of its group.
	IdleTimeout time.Duration `mapstructure:"idle_timeout"`

	// ReleaseInterval is the release timer's tick: records whose max_delay ran out, and sources
	// that went idle, are seen to this often. Arrivals release what they make due at once.
	ReleaseInterval time.Duration `mapstructure:"release_interval"`

	// MaxHeld bounds the records held per merge group; beyond it the oldest go out early.
	MaxHeld int `mapstructure:"max_held"`

	// StorageID, if set, is the storage extension that keeps the records held and not yet
	// accepted by the next consumer, so that a restart replays them.
	StorageID *component.ID `mapstructure:"storage"`

	// OnRefusal says what a refusal for good by the next consumer does, by what it is about
	// (internal/refusal).
	OnRefusal refusal.Policy `mapstructure:"on_refusal"`

	// prevent unkeyed literal initialization
	_ struct{}
}

var _ component.Config = (*Config)(nil)

// Validate checks the configuration; every message starts with the key at fault.
func (cfg *Config) Validate() error {
	var errs []error
	errs = append(errs, validateNames("merge_key", cfg.MergeKey)...)
	errs = append(errs, validateNames("source_attributes", cfg.SourceAttributes)...)
	if cfg.MaxDelay <= 0 {
		errs = append(errs, fmt.Errorf("max_delay: must be more than 0 (got %s)", cfg.MaxDelay))
	}
	if cfg.IdleTimeout <= 0 {
		errs = append(errs, fmt.Errorf("idle_timeout: must be more than 0 (got %s)", cfg.IdleTimeout))
	}
	// A tick longer than max_delay would let records wait for it rather than for max_delay.
	if cfg.ReleaseInterval <= 0 || (cfg.MaxDelay > 0 && cfg.ReleaseInterval > cfg.MaxDelay) {
		errs = append(errs, fmt.Errorf("release_interval: must be more than 0 and at most max_delay (%s) (got %s)",
			cfg.MaxDelay, cfg.ReleaseInterval))
	}
	if cfg.MaxHeld < 1 {
		errs = append(errs, fmt.Errorf("max_held: must be at least 1 (got %d)", cfg.MaxHeld))
	}
	return errors.Join(errs...)
}

// validateNames checks a list of resource attribute names: at least one, none empty, none twice.
func validateNames(key string, names []string) []error {
	if len(names) == 0 {
		return []error{fmt.Errorf("%s: must name at least one resource attribute", key)}
	}
	var errs []error
	for i, n := range names {
		switch {
		case n == "":
			errs = append(errs, fmt.Errorf("%s[%d]: must not be empty", key, i))
		case slices.Index(names, n) < i:
			errs = append(errs, fmt.Errorf("%s[%d]: %q is named twice", key, i, n))
		}
	}
	return errs
}
