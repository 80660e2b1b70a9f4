package outline

import (
	"sort"
	"strconv"
)

func itoa(n int) string { return strconv.Itoa(n) }

// sortByLine orders entries by their first line, parents before children.
func sortByLine(es []Entry) {
	sort.SliceStable(es, func(a, b int) bool {
		if es[a].Line != es[b].Line {
			return es[a].Line < es[b].Line
		}
		return es[a].Depth < es[b].Depth
	})
}
