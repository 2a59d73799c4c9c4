// Package storageext finds a storage extension by its ID among the collector's extensions and
// opens the calling component's client of it, with errors that name the extension.
package storageext

import (
	"context"
	"fmt"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/extension/xextension/storage"
)

// Client opens the client of the storage extension id for the component self of kind kind.
func Client(ctx context.Context, host component.Host, id component.ID, kind component.Kind, self component.ID) (storage.Client, error) {
	ext, ok := host.GetExtensions()[id]
	if !ok {
		return nil, fmt.Errorf("storage: extension %q not found", id)
	}
	se, ok := ext.(storage.Extension)
	if !ok {
		return nil, fmt.Errorf("storage: extension %q is not a storage extension", id)
	}
	client, err := se.GetClient(ctx, kind, self, "")
	if err != nil {
		return nil, fmt.Errorf("storage: extension %q: %w", id, err)
	}
	return client, nil
}
