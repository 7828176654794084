package hwdesc

import (
	"fmt"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
)

// Schema lists the keys of a strict TOML format, for DecodeStrict: the keys
// of each table ("" is the top level; a table or an array of tables is
// named by its dotted key), and likely confusions (a wrong key and the key
// meant) suggested before the nearest key by edit distance.
type Schema struct {
	Keys    map[string][]string
	Aliases map[string]string
}

// DecodeStrict decodes the TOML document data (named name in messages)
// into v, strictly, as Decode reads a hardware description: a syntax error
// or a value of the wrong type is a *SyntaxError at its line, and keys
// that s does not list are an *UnknownKeysError naming each key with its
// line and the key probably meant. It returns the line of every key, by
// dotted path ("sms", "launch_overhead.ns"; for an array of tables, the
// first occurrence, and each element by its index: "kernel[1]",
// "kernel[1].id", "kernel[1].phases.prefetch" for a table under the
// element), for the caller's own positioned checks. A document
// larger or more deeply nested than input.CheckTOML allows is a
// *SyntaxError, found before decoding.
func DecodeStrict(name string, data []byte, v any, s Schema) (lines map[string]int, err error) {
	if err := checkTOML(name, data); err != nil {
		return nil, err
	}
	md, err := toml.Decode(string(data), v)
	if err != nil {
		return nil, syntaxError(name, err)
	}
	secs := scanSections(data)
	if und := md.Undecoded(); len(und) > 0 {
		return nil, s.unknownKeys(name, und, secs)
	}
	lines = map[string]int{}
	count := map[string]int{}   // elements seen per array of tables
	current := map[string]int{} // the array's element tables below it belong to
	for _, sec := range secs {
		if sec.table != "" && sec.line > 0 {
			if _, ok := lines[sec.table]; !ok {
				lines[sec.table] = sec.line
			}
		}
		for k, l := range sec.keys {
			full := k
			if sec.table != "" {
				full = sec.table + "." + k
			}
			if _, ok := lines[full]; !ok {
				lines[full] = l
			}
		}
		// The indexed path of the section: its innermost enclosing
		// array element, by index.
		indexed := ""
		if sec.array {
			i := count[sec.table]
			count[sec.table]++
			current[sec.table] = i
			indexed = fmt.Sprintf("%s[%d]", sec.table, i)
		} else {
			best := ""
			for arr := range current {
				if strings.HasPrefix(sec.table, arr+".") && len(arr) > len(best) {
					best = arr
				}
			}
			if best != "" {
				indexed = fmt.Sprintf("%s[%d]%s", best, current[best], sec.table[len(best):])
			}
		}
		if indexed == "" {
			continue
		}
		if sec.line > 0 {
			lines[indexed] = sec.line
		}
		for k, l := range sec.keys {
			lines[indexed+"."+k] = l
		}
	}
	return lines, nil
}

// hint returns the key of table probably meant by key ("" when none is
// close).
func (s Schema) hint(table, key string) string {
	if a, ok := s.Aliases[key]; ok && contains(s.Keys[table], a) {
		return a
	}
	best, bestD := "", 3
	for _, k := range s.Keys[table] {
		if d := editDistance(key, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// unknownKeys reports the undecoded keys und, each at its lines, with a
// hint; an unknown table is reported once, not each of its keys.
func (s Schema) unknownKeys(name string, und []toml.Key, secs []section) error {
	e := &UnknownKeysError{File: name}
	seen := map[string]bool{}
	undecoded := map[string]bool{}
	for _, k := range und {
		undecoded[k.String()] = true
	}
	for _, k := range und {
		ks := k.String()
		if seen[ks] {
			continue
		}
		seen[ks] = true
		if len(k) > 1 && undecoded[toml.Key(k[:len(k)-1]).String()] {
			continue
		}
		table := ""
		if len(k) > 1 {
			table = strings.Join(k[:len(k)-1], ".")
		}
		h := s.hint(table, k[len(k)-1])
		lines := keyLines(secs, k)
		for p := len(k) - 1; len(lines) == 0 && p > 0; p-- {
			lines = keyLines(secs, k[:p]) // a key of an inline table: its table's key
		}
		if len(lines) == 0 {
			lines = []int{0}
		}
		for _, l := range lines {
			e.Keys = append(e.Keys, UnknownKey{Key: ks, Line: l, Hint: h})
		}
	}
	sort.SliceStable(e.Keys, func(i, j int) bool { return e.Keys[i].Line < e.Keys[j].Line })
	return e
}
