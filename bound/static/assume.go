package static

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg/assume"
	"github.com/gpuwcet/gpuwcet/hwdesc"
)

// DefaultUnitUse states A-DEFAULT-UNIT when the reports timed instructions
// on description hw's default unit: which opcodes and how many
// instructions, summed over the reports. It reports false when none was.
func DefaultUnitUse(hw *hwdesc.Desc, reps ...*Report) (assume.Use, bool) {
	counts := map[string]int{}
	for _, r := range reps {
		for _, u := range r.DefaultUnit {
			counts[u.Op] += u.Count
		}
	}
	if len(counts) == 0 {
		return assume.Use{}, false
	}
	var list []string
	total := 0
	for _, op := range slices.Sorted(maps.Keys(counts)) {
		list = append(list, fmt.Sprintf("%s ×%d", op, counts[op]))
		total += counts[op]
	}
	return assume.Uf(assume.DefaultUnit, "%d instruction(s) whose opcode no rule of hardware description %s routes are timed on its default unit %q: %s", total, hw.Name, hw.DefaultUnit, strings.Join(list, ", ")), true
}
