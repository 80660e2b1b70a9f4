package fileindex

import (
	"errors"

	"github.com/toold/toold/internal/watchcost"
)

// errWatchBudget: with kqueue (macOS, FreeBSD) a watch holds a descriptor
// per entry of the directory, and this one does not fit the process's
// budget (watchcost): its files rely on the stat checks.
var errWatchBudget = errors.New("past the budget of descriptors for watches")

// charge charges dir's watch to the budget, once; false when it does not
// fit. Under watchMu.
func (c *Cache) charge(dir string) bool {
	if _, ok := c.charges[dir]; ok {
		return true
	}
	cost := watchcost.Of(dir)
	if !watchcost.Take(cost) {
		return false
	}
	if c.charges == nil {
		c.charges = map[string]int{}
	}
	c.charges[dir] = cost
	return true
}

// uncharge gives back dir's charge, every directory's when dir is "".
// Under watchMu.
func (c *Cache) uncharge(dir string) {
	if dir != "" {
		watchcost.Give(c.charges[dir])
		delete(c.charges, dir)
		return
	}
	for _, cost := range c.charges {
		watchcost.Give(cost)
	}
	clear(c.charges)
}
