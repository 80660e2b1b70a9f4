//go:build !linux && !darwin

package fileindex

import (
	"io/fs"
	"os"
)

// statID has no inode or ctime here: size and mtime only.
func statID(fi fs.FileInfo) fileID {
	return fileID{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
}

// sizeLies is false here: only a stat size of 0 makes a file be read to EOF.
func sizeLies(*os.File) bool { return false }
