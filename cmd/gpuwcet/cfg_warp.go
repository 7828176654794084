package main

import (
	"bytes"
	"fmt"

	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/cfgdot"
	"github.com/gpuwcet/gpuwcet/divergence"
)

// warpFlagName is the `gpuwcet cfg --warp` switch.
const warpFlagName = "warp"

// writeWarp renders the warp-level CFGs of info in format (text, dot or
// json; json values are appended to *jsonFuncs, one per class, named
// FUNC#cK).
func writeWarp(buf *bytes.Buffer, format string, info *divergence.Info, maxInstrs int, withInstrs bool, jsonFuncs *[]*cfg.JSON) error {
	switch format {
	case "text":
		return divergence.Format(buf, info)
	case "dot":
		for i, c := range info.Classes {
			if i > 0 {
				buf.WriteByte('\n')
			}
			d := cfgdot.Graph(c.Graph, cfgdot.Options{MaxInstrs: maxInstrs, Mark: warpMark(info, c)})
			name := fmt.Sprintf("%s class %d: %s", info.Graph.Func.Name, c.Index, c.Name)
			d.Attr("label", name)
			buf.WriteString(d.String())
		}
		return nil
	case "json":
		for _, c := range info.Classes {
			j := cfg.NewJSON(c.Graph, withInstrs)
			j.Name = fmt.Sprintf("%s#c%d", j.Name, c.Index)
			*jsonFuncs = append(*jsonFuncs, j)
		}
		return nil
	}
	return fmt.Errorf("unknown format %q", format)
}

// warpMark is the DOT overlay of a class (legend in docs/divergence.md):
// divergent branches pink, reconvergence points green, blocks run under a
// partial mask yellow.
func warpMark(info *divergence.Info, c *divergence.Class) func(b *cfg.Block) (string, string) {
	return func(b *cfg.Block) (string, string) {
		if br := info.Branch(b.Orig); br != nil && br.Outcomes[c.Index] == divergence.Divergent && !br.Exit {
			return "lightpink", "divergent: reconverges at " + br.Reconv.Name()
		}
		if c.Reconv[b] {
			return "palegreen", "reconvergence"
		}
		if d := c.Depth[b]; d > 0 {
			return "lightyellow", fmt.Sprintf("partial mask (depth %d)", d)
		}
		return "", ""
	}
}
