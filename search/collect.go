package search

// collector merges the files' results in walk order under the limits.
type collector struct {
	opt          *GrepOptions
	res          GrepResult
	shown, bytes int
}

// add merges the matches of one file, whose scanner stopped keeping them
// for reason hit; it reports false when a limit is reached and the search
// should stop.
func (c *collector) add(path string, fm FileMatches, hit0 LimitKind) bool {
	if fm.Count == 0 {
		return true
	}
	fm.Path = path
	n, cost, hit := 0, len(path)+1, LimitNone
	for _, m := range fm.Matches {
		if c.opt.Limit > 0 && c.shown >= c.opt.Limit {
			hit = LimitMatches
			break
		}
		if c.opt.MaxBytes > 0 && c.bytes+cost+m.size > c.opt.MaxBytes {
			hit = LimitBytes
			break
		}
		c.shown++
		c.bytes += cost + m.size
		c.res.ClippedLines += m.clipped
		cost = 0
		n++
	}
	if hit == LimitNone && n < fm.Count {
		hit = hit0
		if hit == LimitNone { // kept all it could: only past the shown limit
			hit = LimitMatches
		}
	}
	if n > 0 {
		fm.Matches = fm.Matches[:n]
		c.res.Files = append(c.res.Files, fm)
		c.res.TotalMatches += fm.Count
	}
	c.res.LimitReached = hit
	return hit == LimitNone
}

// addBatch merges the outcomes of a job; false when a limit is reached.
func (c *collector) addBatch(j *batch, outs []outcome) bool {
	if len(j.files) == 0 {
		c.res.Skipped.Ignored = j.ignored
		return true
	}
	for i, o := range outs {
		c.res.Skipped.Ignored = j.files[i].ignored
		switch o.skip {
		case skipBinary:
			c.res.Skipped.Binary++
		case skipTooLarge:
			c.res.Skipped.TooLarge++
		case 0:
			if o.res.Count > 0 && !c.add(j.files[i].rel(), o.res, o.hit) {
				return false
			}
		}
	}
	return true
}
