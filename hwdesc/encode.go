package hwdesc

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Encode writes d as TOML in the canonical layout: top-level keys in schema
// order, then the units, then the rules, each key on its own line, empty
// optional keys left out. The output decodes back to an equal description
// (Decode(Encode(d)) == d, File and Line fields aside) and is stable: equal
// descriptions encode to equal bytes.
func Encode(w io.Writer, d *Desc) error {
	var b bytes.Buffer
	kv := func(key, val string) { fmt.Fprintf(&b, "%s = %s\n", key, val) }
	str := func(key, val string) {
		if val != "" {
			kv(key, tomlString(val))
		}
	}
	cyc := func(key string, c Cycles) { kv(key, strconv.FormatInt(int64(c), 10)) }
	kv("name", tomlString(d.Name))
	str("description", d.Description)
	str("version", d.Version)
	str("source", d.Source)
	str("arch", d.Arch)
	str("isa", d.ISA)
	kv("clock_mhz", formatFloat(d.ClockMHz))
	if d.MemLatency != 0 {
		cyc("mem_latency", d.MemLatency)
	}
	str("default_unit", d.DefaultUnit)
	if len(d.Notes) > 0 {
		b.WriteString("notes = [\n")
		for _, n := range d.Notes {
			fmt.Fprintf(&b, "  %s,\n", tomlString(n))
		}
		b.WriteString("]\n")
	}
	if p := d.Pipeline; p.Overhead != 0 || p.BranchWait != "" || p.RetIssues || p.BarrierIssues || p.Doc != "" {
		b.WriteString("\n[pipeline]\n")
		if p.Overhead != 0 {
			cyc("overhead", p.Overhead)
		}
		str("branch_wait", p.BranchWait)
		if p.RetIssues {
			kv("ret_issues", "true")
		}
		if p.BarrierIssues {
			kv("barrier_issues", "true")
		}
		str("doc", p.Doc)
	}
	for _, u := range d.Units {
		b.WriteString("\n[[unit]]\n")
		kv("name", tomlString(u.Name))
		cyc("init", u.Init)
		cyc("lat", u.Lat)
		str("group", u.Group)
		if u.Count != 0 {
			kv("count", strconv.Itoa(u.Count))
		}
		if u.GPGPUSimLatency != 0 {
			cyc("gpgpusim_latency", u.GPGPUSimLatency)
		}
		str("doc", u.Doc)
	}
	for _, r := range d.Map {
		b.WriteString("\n[[map]]\n")
		kv("match", tomlString(r.Match))
		str("unit", r.Unit)
		str("reject", r.Reject)
		str("doc", r.Doc)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// Hash returns the SHA-256 of d's canonical encoding, in hex, for reports:
// two descriptions with the same hash time every opcode the same way.
func (d *Desc) Hash() string {
	h := sha256.New()
	_ = Encode(h, d) // a hash.Hash never fails to write
	return hex.EncodeToString(h.Sum(nil))
}

// formatFloat writes a TOML float that reads back to the same value; whole
// numbers are written as integers (the schema accepts both).
func formatFloat(f float64) string {
	s := strconv.FormatFloat(f, 'g', -1, 64)
	switch s {
	case "NaN":
		return "nan"
	case "+Inf":
		return "inf"
	case "-Inf":
		return "-inf"
	}
	return s // "930", "1132.5" and "1e+21" are valid TOML numbers
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&b, `\u%04X`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}
