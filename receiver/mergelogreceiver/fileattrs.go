package mergelogreceiver

import (
	"fmt"
	"os"
	"runtime"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.uber.org/zap"

	"github.com/mergelog/otelcol-mergelog/internal/fileowner"
)

// The attribute names of file_log (stanza's fileconsumer/attrs): a file's names and paths, what
// the file system says of it, and where a record is in it.
const (
	attrFileName           = "log.file.name"
	attrFilePath           = "log.file.path"
	attrFileNameResolved   = "log.file.name_resolved"
	attrFilePathResolved   = "log.file.path_resolved"
	attrRecordNumber       = "log.file.record_number"
	attrFileOwnerName      = "log.file.owner.name"
	attrFileOwnerGroupName = "log.file.owner.group.name"
	attrFilePermissions    = "log.file.permissions"
	attrRecordOffset       = "log.file.record_offset"
)

// wantsOwnership reports whether a file's owner, group or permissions are attributes.
func (c *Config) wantsOwnership() bool {
	return c.IncludeFileOwnerName || c.IncludeFileOwnerGroupName || c.IncludeFilePermissions
}

// validateOwnership refuses the keys file_log refuses on Windows, where it has no owner names.
func (c *Config) validateOwnership(errs *keyErrors) {
	if runtime.GOOS != "windows" {
		return
	}
	if c.IncludeFileOwnerName || c.IncludeFileOwnerGroupName {
		errs.add("include_file_owner_name", "not supported on Windows (nor include_file_owner_group_name)")
	}
	if c.IncludeFilePermissions {
		errs.add("include_file_permissions", "not supported on Windows")
	}
}

// putOwnership adds the owner, group and permission attributes of the file at path to m, as
// file_log resolves them when it opens a file: permissions as three octal digits ("644"), the
// names the system's user and group databases give. A name that cannot be found (a uid without
// an entry, common in containers) is left out and logged once per file; file_log would not read
// the file at all.
func putOwnership(m pcommon.Map, path string, cfg *Config, logger *zap.Logger) {
	info, err := os.Stat(path)
	if err != nil {
		logger.Debug("Cannot stat the file for its owner and permissions", zap.String("path", path), zap.Error(err))
		return
	}
	if cfg.IncludeFilePermissions {
		m.PutStr(attrFilePermissions, fmt.Sprintf("%03o", info.Mode().Perm()))
	}
	if !cfg.IncludeFileOwnerName && !cfg.IncludeFileOwnerGroupName {
		return
	}
	owner, group, err := fileowner.Names(info, cfg.IncludeFileOwnerName, cfg.IncludeFileOwnerGroupName)
	if owner != "" {
		m.PutStr(attrFileOwnerName, owner)
	}
	if group != "" {
		m.PutStr(attrFileOwnerGroupName, group)
	}
	if err != nil {
		logger.Warn("Cannot resolve the file's owner or group name; the attribute is left out",
			zap.String("path", path), zap.Error(err))
	}
}
