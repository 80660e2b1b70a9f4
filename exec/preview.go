package exec

import (
	"github.com/toold/toold/highlight"
	"github.com/toold/toold/preview"
	"github.com/toold/toold/truncate"
)

// The preview of a stream is package preview's; these are the names methods
// still calls it by (drop them once methods imports preview itself).

// KeepBytes is preview.KeepBytes: how many bytes at each end of a stream a
// preview of at most maxBytes bytes is cut from.
func KeepBytes(maxBytes int) int { return preview.KeepBytes(maxBytes) }

// Preview is preview.Result: an output's preview with the groups the
// detector found in it.
type Preview = preview.Result

// PreviewFound is preview.Found: o's preview with the groups found in it.
func PreviewFound(o truncate.Output, found highlight.Result, lines func(from, to int64) []byte, opt truncate.PreviewOptions) Preview {
	return preview.Found(o, found, lines, opt)
}
