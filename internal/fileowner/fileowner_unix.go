//go:build !windows

package fileowner

import (
	"errors"
	"io/fs"
	"os/user"
	"strconv"
	"syscall"
)

// Names returns the names of info's owner and group, those asked for.
func Names(info fs.FileInfo, owner, group bool) (string, string, error) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return "", "", ErrUnknown
	}
	var ownerName, groupName string
	var errs []error
	if owner {
		u, err := user.LookupId(strconv.FormatUint(uint64(st.Uid), 10))
		if err == nil {
			ownerName = u.Username
		}
		errs = append(errs, err)
	}
	if group {
		g, err := user.LookupGroupId(strconv.FormatUint(uint64(st.Gid), 10))
		if err == nil {
			groupName = g.Name
		}
		errs = append(errs, err)
	}
	return ownerName, groupName, errors.Join(errs...)
}
