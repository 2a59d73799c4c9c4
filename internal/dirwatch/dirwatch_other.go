//go:build !linux

package dirwatch

// Watcher watches nothing here: New returns ErrUnsupported.
type Watcher struct{}

// New returns ErrUnsupported.
func New() (*Watcher, error) { return nil, ErrUnsupported }

// Sync is never reached: New returns no Watcher.
func (*Watcher) Sync([]string) (int, error) { return 0, ErrUnsupported }

// Changes is never reached: New returns no Watcher.
func (*Watcher) Changes() ([]string, bool) { return nil, true }

// Close is never reached: New returns no Watcher.
func (*Watcher) Close() error { return nil }
