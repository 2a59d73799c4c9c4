package logsgzipprocessor // import "github.com/mergelog/otelcol-mergelog/processor/logsgzipprocessor"

import (
	"errors"
	"fmt"

	"github.com/klauspost/compress/gzip"
	"go.opentelemetry.io/collector/component"
)

// Values of structured_bodies.
const (
	// StructuredKeep leaves Map and Slice bodies as they are.
	StructuredKeep = "keep"
	// StructuredJSON serialises Map and Slice bodies to JSON and compresses that.
	StructuredJSON = "json"
)

// Config defines the configuration of the logsgzip processor.
type Config struct {
	// Level is the gzip level: 1 (fastest) to 9 (smallest), 0 (stored, no
	// compression), -1 (klauspost's default, 5), -2 (Huffman only) or
	// -3 (stateless: fastest for small bodies, a little larger output).
	Level int `mapstructure:"level"`

	// MinSize leaves bodies shorter than this many bytes unchanged, since gzip
	// adds 18 bytes of framing. 0 compresses every non-empty body.
	MinSize int `mapstructure:"min_size"`

	// StructuredBodies says what to do with Map and Slice bodies:
	// "keep" leaves them unchanged, "json" serialises them to JSON and
	// compresses that (the body then becomes bytes like any other).
	StructuredBodies string `mapstructure:"structured_bodies"`

	// MarkAttribute, if not empty, is the name of a record attribute set to
	// "gzip" on every record whose body this processor compressed.
	MarkAttribute string `mapstructure:"mark_attribute"`

	// MaxWorkers bounds the goroutines one large batch is split across.
	// 0 means GOMAXPROCS; 1 keeps all work on the calling goroutine.
	MaxWorkers int `mapstructure:"max_workers"`

	// prevent unkeyed literal initialization
	_ struct{}
}

var _ component.Config = (*Config)(nil)

// Validate checks the configuration; every message starts with the key at fault.
func (cfg *Config) Validate() error {
	var errs []error
	if cfg.Level < gzip.StatelessCompression || cfg.Level > gzip.BestCompression {
		errs = append(errs, fmt.Errorf("level: must be between %d and %d (got %d)",
			gzip.StatelessCompression, gzip.BestCompression, cfg.Level))
	}
	if cfg.MinSize < 0 {
		errs = append(errs, fmt.Errorf("min_size: must be 0 or more bytes (got %d)", cfg.MinSize))
	}
	if cfg.StructuredBodies != StructuredKeep && cfg.StructuredBodies != StructuredJSON {
		errs = append(errs, fmt.Errorf("structured_bodies: must be %q or %q (got %q)",
			StructuredKeep, StructuredJSON, cfg.StructuredBodies))
	}
	if cfg.MaxWorkers < 0 {
		errs = append(errs, fmt.Errorf("max_workers: must be 0 (GOMAXPROCS) or more (got %d)", cfg.MaxWorkers))
	}
	return errors.Join(errs...)
}
