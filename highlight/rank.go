package highlight

import (
	"cmp"
	"slices"
)

// Rank orders groups (in output order, as Finish gives them) by the place
// each earns under a budget: its score, one model for every group. Errors
// (and the lines before a non-zero exit or that a closing summary of
// failure refers to: reason "exit") come first, then warnings, then the
// lines of rare shapes that no rule or word of failure marks (reason
// "rare"); within each, the first and the last group, those of a rare
// shape (Group.Rare: one that stands out among many alike), distinct
// messages before repeats; rare groups by how much their shape stood out
// when it came (see shapeCounts.surprise). Then, the same way, the spare
// groups (those pushed out of the detector's MaxGroups, shown only when
// the budget has room left). Equal scores keep output order.
// A caller takes groups in this order while they fit, and shows those it
// took in output order; the rest are counted as left out.
func Rank(gs []Group) []int {
	first, last := map[Severity]int{}, map[Severity]int{}
	for i, g := range gs {
		if g.Spare || g.Severity == 0 {
			continue
		}
		if _, ok := first[g.Severity]; !ok {
			first[g.Severity] = i
		}
		last[g.Severity] = i
	}
	score := make([]int64, len(gs))
	for i, g := range gs {
		score[i] = groupScore(g, first[g.Severity] == i || last[g.Severity] == i)
	}
	order := make([]int, len(gs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if gs[a].Spare != gs[b].Spare {
			if gs[a].Spare {
				return 1
			}
			return -1
		}
		return cmp.Compare(score[b], score[a])
	})
	return order
}

// groupScore is a group's score: its reason's tier, then what sets it
// apart within it; ends: it is the first or the last of its severity.
func groupScore(g Group, ends bool) int64 {
	var s int64
	switch g.Reason {
	case ReasonRare:
		return 1000 + min(g.score, 999)
	case ReasonWarning:
		s = 2000
	default: // error, exit, or a group made without a reason
		s = 4000
		if g.Severity == Warning {
			s = 2000
		}
	}
	if ends && g.Severity > 0 {
		s += 400
	}
	if g.Rare {
		s += 200
	}
	if !g.Repeat {
		s += 100
	}
	return s
}
