package pageoutextension // import "github.com/mergelog/otelcol-mergelog/extension/pageoutextension"

import (
	"fmt"
	"time"
)

// Config is the pageout extension's configuration.
type Config struct {
	// Delay is how long after the pipelines are ready the executable's pages are given back
	// (0, the default: at once).
	Delay time.Duration `mapstructure:"delay"`
}

// Validate checks the configuration.
func (c *Config) Validate() error {
	if c.Delay < 0 {
		return fmt.Errorf("delay: must not be negative (got %s)", c.Delay)
	}
	return nil
}
