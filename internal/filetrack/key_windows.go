//go:build windows

package filetrack

import (
	"io/fs"
	"syscall"
)

// keyOf returns the volume serial number and file index of the file at path:
// Windows' device and inode. The stat does not carry them, so the file is
// opened for its attributes only (as os.SameFile does), sharing everything
// so that a rotation is never blocked. It is opened by path even where a
// descriptor is at hand: a file replaced in between is then seen as another
// file, which is what the callers check for.
func keyOf(path string, _ fs.FileInfo) (fileKey, error) {
	p, err := syscall.UTF16PtrFromString(path)
	if err != nil {
		return fileKey{}, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	h, err := syscall.CreateFile(p, 0,
		syscall.FILE_SHARE_READ|syscall.FILE_SHARE_WRITE|syscall.FILE_SHARE_DELETE,
		nil, syscall.OPEN_EXISTING, syscall.FILE_FLAG_BACKUP_SEMANTICS, 0)
	if err != nil {
		return fileKey{}, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.CloseHandle(h)
	var d syscall.ByHandleFileInformation
	if err := syscall.GetFileInformationByHandle(h, &d); err != nil {
		return fileKey{}, &fs.PathError{Op: "GetFileInformationByHandle", Path: path, Err: err}
	}
	return fileKey{
		dev: uint64(d.VolumeSerialNumber),
		ino: uint64(d.FileIndexHigh)<<32 | uint64(d.FileIndexLow),
	}, nil
}
