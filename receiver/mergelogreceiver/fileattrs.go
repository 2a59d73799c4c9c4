package mergelogreceiver

import (
	"errors"
	"fmt"
	"os"
	"runtime"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.uber.org/zap"
)

// The attribute names of file_log (stanza's fileconsumer/attrs) for what the file system says
// of a file and where a record is in it.
const (
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
func (r *mergelogReceiver) putOwnership(m pcommon.Map, path string) {
	info, err := os.Stat(path)
	if err != nil {
		r.set.Logger.Debug("Cannot stat the file for its owner and permissions", zap.String("path", path), zap.Error(err))
		return
	}
	if r.cfg.IncludeFilePermissions {
		m.PutStr(attrFilePermissions, fmt.Sprintf("%03o", info.Mode().Perm()))
	}
	if !r.cfg.IncludeFileOwnerName && !r.cfg.IncludeFileOwnerGroupName {
		return
	}
	owner, group, err := ownerNames(info, r.cfg.IncludeFileOwnerName, r.cfg.IncludeFileOwnerGroupName)
	if owner != "" {
		m.PutStr(attrFileOwnerName, owner)
	}
	if group != "" {
		m.PutStr(attrFileOwnerGroupName, group)
	}
	if err != nil {
		r.set.Logger.Warn("Cannot resolve the file's owner or group name; the attribute is left out",
			zap.String("path", path), zap.Error(err))
	}
}

var errNoOwnership = errors.New("file owners are not known on this system")
