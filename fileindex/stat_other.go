//go:build !linux && !darwin

package fileindex

import "io/fs"

const openFlags = 0

// statID has no inode or ctime here: size and mtime only.
func statID(fi fs.FileInfo) fileID {
	return fileID{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
}
