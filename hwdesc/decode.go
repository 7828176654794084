package hwdesc

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/gpuwcet/gpuwcet/cfg/input"
)

// Load reads, strictly decodes and validates the description in a file
// (at most input.MaxTOMLBytes).
func Load(path string) (*Desc, error) {
	return loadChain(path, nil)
}

// loadChain is Load for a description reached through extends from the
// files of chain (absolute paths, for the cycle check).
func loadChain(path string, chain []string) (*Desc, error) {
	data, err := input.ReadFile(path, input.MaxTOMLBytes)
	if err != nil {
		return nil, fmt.Errorf("hardware description: %w", err)
	}
	return decode(path, data, &extender{dir: filepath.Dir(path), file: true, chain: chain})
}

// Decode strictly decodes and validates a description; name is the file
// name used in messages and recorded in Desc.File.
//
// Errors are positioned ("name:line[:col]: ..."): a *SyntaxError for TOML
// syntax, an ErrorList for values of the wrong type and for the checks of
// Validate, an *UnknownKeysError for keys that are not in the schema. A
// document larger or more deeply nested than input.CheckTOML allows is a
// *SyntaxError, found before decoding.
//
// A description with extends is merged with its base (see Extend) before it
// is validated; Decode resolves built-in bases only, Load also files.
func Decode(name string, data []byte) (*Desc, error) {
	return decode(name, data, &extender{})
}

func decode(name string, data []byte, ext *extender) (*Desc, error) {
	if err := checkTOML(name, data); err != nil {
		return nil, err
	}
	var raw map[string]any
	if _, err := toml.Decode(string(data), &raw); err != nil {
		return nil, syntaxError(name, err)
	}
	secs := scanSections(data)
	if err := checkTypes(name, raw, secs); err != nil {
		return nil, err
	}
	d := new(Desc)
	md, err := toml.Decode(string(data), d)
	if err != nil {
		// checkTypes should have caught every type error; keep a
		// positioned fallback all the same.
		return nil, syntaxError(name, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		return nil, unknownKeys(name, und, secs)
	}
	if len(d.Notes) == 0 {
		d.Notes = nil // "notes = []" and no notes are the same description
	}
	d.File = name
	setLines(d, secs)
	if d.Extends != "" || d.Lines != nil && d.Lines["extends"] > 0 {
		if d, err = ext.extend(d); err != nil {
			return nil, err
		}
	}
	if err := d.Validate(); err != nil {
		return nil, err
	}
	return d, nil
}

// checkTOML is input.CheckTOML (size and nesting, before decoding) with
// its error as a *SyntaxError.
func checkTOML(name string, data []byte) error {
	err := input.CheckTOML(name, data)
	var ie *input.Error
	if errors.As(err, &ie) {
		return &SyntaxError{File: name, Line: ie.Pos.Line, Col: ie.Pos.Column, Msg: ie.Msg, Err: err}
	}
	return err
}

var lineRE = regexp.MustCompile(`^toml: line (\d+)`)

func syntaxError(name string, err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		return &SyntaxError{File: name, Line: pe.Position.Line, Col: pe.Position.Col, Msg: pe.Message, Err: pe}
	}
	msg := strings.TrimPrefix(err.Error(), "toml: ")
	line := 0
	if m := lineRE.FindStringSubmatch(err.Error()); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = strings.TrimPrefix(err.Error()[len(m[0]):], ": ")
	}
	return &SyntaxError{File: name, Line: line, Msg: msg, Err: err}
}

// The schema's keys, by table ("" is the top level). A test checks them
// against the struct tags.
var schemaKeys = map[string][]string{
	"":         {"name", "extends", "description", "version", "source", "arch", "isa", "clock_mhz", "mem_latency", "default_unit", "notes", "pipeline", "unit", "map"},
	"pipeline": {"overhead", "branch_wait", "ret_issues", "barrier_issues", "doc"},
	"unit":     {"name", "init", "lat", "group", "count", "gpgpusim_latency", "doc"},
	"map":      {"match", "unit", "reject", "doc"},
}

// Likely confusions, checked before edit distance.
var keyAliases = map[string]string{
	"latency": "lat", "initiation": "init", "init_interval": "init", "ii": "init",
	"pattern": "match", "glob": "match", "opcode": "match", "op": "match",
	"clock": "clock_mhz", "clock_hz": "clock_mhz", "freq_mhz": "clock_mhz",
	"units": "unit", "rule": "map", "rules": "map", "maps": "map",
	"default": "default_unit", "description_": "description", "desc": "description",
	"pipeline_overhead": "overhead", "branch": "branch_wait", "control_hazard": "branch_wait",
}

func hint(table, key string) string { return hwSchema.hint(table, key) }

// hwSchema is the schema of a hardware description, for DecodeStrict's
// helpers.
var hwSchema = Schema{Keys: schemaKeys, Aliases: keyAliases}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func unknownKeys(name string, und []toml.Key, secs []section) error {
	return hwSchema.unknownKeys(name, und, secs)
}

// keyLines returns the lines where key k is defined (as a key or as a
// table header), in file order.
func keyLines(secs []section, k toml.Key) []int {
	var lines []int
	full := strings.Join(k, ".")
	for _, s := range secs {
		if s.table == full && s.line > 0 {
			lines = append(lines, s.line)
			continue
		}
		var rel string
		switch {
		case s.table == "":
			rel = full
		case strings.HasPrefix(full, s.table+"."):
			rel = full[len(s.table)+1:]
		default:
			continue
		}
		if l, ok := s.keys[rel]; ok {
			lines = append(lines, l)
		}
	}
	return lines
}

func setLines(d *Desc, secs []section) {
	var units, rules []section
	for _, s := range secs {
		switch {
		case s.table == "" && s.line == 0:
			d.Lines = s.keys
		case s.array && s.table == "unit":
			units = append(units, s)
		case s.array && s.table == "map":
			rules = append(rules, s)
		case !s.array && s.table == "pipeline":
			d.Pipeline.Line, d.Pipeline.Lines = s.line, s.keys
		}
	}
	if len(units) == len(d.Units) {
		for i := range units {
			d.Units[i].Line, d.Units[i].Lines = units[i].line, units[i].keys
		}
	}
	if len(rules) == len(d.Map) {
		for i := range rules {
			d.Map[i].Line, d.Map[i].Lines = rules[i].line, rules[i].keys
		}
	}
}

// checkTypes checks the type of every schema value in the generic decoding
// raw, so that a wrong type is reported at its own line (the TOML library
// reports the last occurrence of a key of an array of tables).
func checkTypes(name string, raw map[string]any, secs []section) error {
	var errs ErrorList
	var top, pipe section
	var units, rules []section
	for _, s := range secs {
		switch {
		case s.table == "" && s.line == 0:
			top = s
		case s.array && s.table == "unit":
			units = append(units, s)
		case s.array && s.table == "map":
			rules = append(rules, s)
		case !s.array && s.table == "pipeline":
			pipe = s
		}
	}
	check := func(where string, m map[string]any, s *section, key, want string) {
		v, ok := m[key]
		if !ok {
			return
		}
		line := 0
		if s != nil {
			line = s.keys[key]
		}
		got := tomlType(v)
		okType := got == want || (want == "number" && (got == "integer" || got == "float"))
		if want == "string array" {
			okType = false
			if a, isArr := v.([]any); isArr {
				okType = true
				for _, x := range a {
					if _, isStr := x.(string); !isStr {
						okType = false
					}
				}
			}
		}
		if !okType {
			errs.add(name, line, "%s%s must be %s, not %s", where, key, article(want), got)
		}
	}
	for _, k := range []string{"name", "extends", "description", "version", "source", "arch", "isa", "default_unit"} {
		check("", raw, &top, k, "string")
	}
	check("", raw, &top, "clock_mhz", "number")
	check("", raw, &top, "mem_latency", "integer")
	check("", raw, &top, "notes", "string array")
	if v, ok := raw["pipeline"]; ok {
		if m, isTable := v.(map[string]any); !isTable {
			errs.add(name, top.keys["pipeline"], "pipeline must be a table ([pipeline] section), not %s", tomlType(v))
		} else {
			check("pipeline: ", m, &pipe, "overhead", "integer")
			check("pipeline: ", m, &pipe, "branch_wait", "string")
			check("pipeline: ", m, &pipe, "doc", "string")
			check("pipeline: ", m, &pipe, "ret_issues", "boolean")
			check("pipeline: ", m, &pipe, "barrier_issues", "boolean")
		}
	}
	elems := func(key string, secs []section, each func(i int, m map[string]any, s *section)) {
		v, ok := raw[key]
		if !ok {
			return
		}
		arr, ok := v.([]map[string]any)
		if !ok {
			errs.add(name, top.keys[key], "%s must be an array of tables ([[%s]] sections), not %s", key, key, tomlType(v))
			return
		}
		for i, m := range arr {
			var s *section
			if len(secs) == len(arr) {
				s = &secs[i]
			}
			each(i, m, s)
		}
	}
	elems("unit", units, func(i int, m map[string]any, s *section) {
		where := fmt.Sprintf("unit %d: ", i+1)
		if n, ok := m["name"].(string); ok {
			where = fmt.Sprintf("unit %q: ", n)
		}
		for _, k := range []string{"name", "group", "doc"} {
			check(where, m, s, k, "string")
		}
		for _, k := range []string{"init", "lat", "count", "gpgpusim_latency"} {
			check(where, m, s, k, "integer")
		}
	})
	elems("map", rules, func(i int, m map[string]any, s *section) {
		where := fmt.Sprintf("rule %d: ", i+1)
		if p, ok := m["match"].(string); ok {
			where = fmt.Sprintf("rule %q: ", p)
		}
		for _, k := range []string{"match", "unit", "reject", "doc"} {
			check(where, m, s, k, "string")
		}
	})
	return errs.Err()
}

func article(t string) string {
	switch t {
	case "integer":
		return "an integer"
	case "number":
		return "a number"
	case "string array":
		return "an array of strings"
	}
	return "a " + t
}

func tomlType(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case int64:
		return "integer"
	case float64:
		return "float"
	case bool:
		return "boolean"
	case []map[string]any:
		return "array of tables"
	case []any:
		return "array"
	case map[string]any:
		return "table"
	}
	return "date/time"
}

// section is a run of key/value lines under one table header.
type section struct {
	table string         // dotted header ("" for the top level)
	array bool           // [[header]]
	line  int            // line of the header; 0 for the top level
	keys  map[string]int // dotted key (relative to the table) -> line
}

// scanSections finds the table headers and keys of a TOML document with
// their lines. It is only used for messages: the document has already
// been parsed successfully by the TOML library.
func scanSections(data []byte) []section {
	secs := []section{{keys: map[string]int{}}}
	cur := &secs[0]
	var st scanState
	for i, line := range strings.Split(string(data), "\n") {
		n := i + 1
		if st.busy() {
			st.scan(line)
			continue
		}
		t := strings.TrimSpace(line)
		switch {
		case t == "" || t[0] == '#':
		case strings.HasPrefix(t, "[["):
			if end := strings.Index(t, "]]"); end > 0 {
				secs = append(secs, section{table: normKey(t[2:end]), array: true, line: n, keys: map[string]int{}})
				cur = &secs[len(secs)-1]
			}
		case t[0] == '[':
			if end := strings.IndexByte(t, ']'); end > 0 {
				secs = append(secs, section{table: normKey(t[1:end]), line: n, keys: map[string]int{}})
				cur = &secs[len(secs)-1]
			}
		default:
			eq := keyEnd(t)
			if eq < 0 {
				continue
			}
			k := normKey(t[:eq])
			if _, dup := cur.keys[k]; !dup {
				cur.keys[k] = n
			}
			st.scan(t[eq+1:])
		}
	}
	return secs
}

// keyEnd returns the index of the '=' that ends the key of a key/value
// line, skipping quoted key parts; -1 if none.
func keyEnd(t string) int {
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case '=':
			return i
		case '"', '\'':
			q := t[i]
			for i++; i < len(t) && t[i] != q; i++ {
				if q == '"' && t[i] == '\\' {
					i++
				}
			}
		}
	}
	return -1
}

// normKey turns `a . "b"` into a.b.
func normKey(k string) string {
	parts := strings.Split(k, ".")
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if len(p) >= 2 && (p[0] == '"' || p[0] == '\'') && p[len(p)-1] == p[0] {
			p = p[1 : len(p)-1]
		}
		parts[i] = p
	}
	return strings.Join(parts, ".")
}

// scanState follows strings and brackets of values across lines, so that
// continuation lines of multi-line arrays and strings are not taken for
// keys.
type scanState struct {
	depth int    // open [ and {
	multi string // open multi-line string delimiter, or ""
}

func (s *scanState) busy() bool { return s.depth > 0 || s.multi != "" }

func (s *scanState) scan(v string) {
	for i := 0; i < len(v); i++ {
		if s.multi != "" {
			if strings.HasPrefix(v[i:], s.multi) {
				i += len(s.multi) - 1
				s.multi = ""
			} else if s.multi == `"""` && v[i] == '\\' {
				i++
			}
			continue
		}
		switch c := v[i]; c {
		case '#':
			return
		case '[', '{':
			s.depth++
		case ']', '}':
			if s.depth > 0 {
				s.depth--
			}
		case '"', '\'':
			if strings.HasPrefix(v[i:], strings.Repeat(string(c), 3)) {
				s.multi = strings.Repeat(string(c), 3)
				i += 2
				continue
			}
			for i++; i < len(v) && v[i] != c; i++ {
				if c == '"' && v[i] == '\\' {
					i++
				}
			}
		}
	}
}
