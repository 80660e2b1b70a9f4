package highlight

// Rank orders groups (in output order, as Finish gives them) by the place
// each earns under a budget: the first error group, the last, those of a
// rare shape (Group.Rare: one that stands out among many alike), the
// other errors with distinct keys, the repeats; then the warnings the same
// way; then, the same way, the spare groups (those pushed out of the
// detector's MaxGroups, shown only when the budget has room left).
// A caller takes groups in this order while they fit, and shows those it
// took in output order; the rest are counted as left out.
func Rank(gs []Group) []int {
	order := make([]int, 0, len(gs))
	taken := make([]bool, len(gs))
	take := func(i int) {
		if i >= 0 && !taken[i] {
			taken[i] = true
			order = append(order, i)
		}
	}
	for _, spare := range []bool{false, true} {
		rankSeverities(gs, spare, take)
	}
	return order
}

// rankSeverities takes, in Rank's order, the groups of gs that are spare
// (pushed out of the detector's MaxGroups) or not.
func rankSeverities(gs []Group, spare bool, take func(int)) {
	for _, sev := range []Severity{Error, Warning} {
		first, last := -1, -1
		for i, g := range gs {
			if g.Severity == sev && g.Spare == spare {
				if first < 0 {
					first = i
				}
				last = i
			}
		}
		take(first)
		take(last)
		for i, g := range gs {
			if g.Severity == sev && g.Spare == spare && g.Rare {
				take(i)
			}
		}
		for _, repeat := range []bool{false, true} {
			for i, g := range gs {
				if g.Severity == sev && g.Spare == spare && g.Repeat == repeat {
					take(i)
				}
			}
		}
	}
}
