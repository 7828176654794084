package sass

import (
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg/isa"
)

// lifeRange is what nvdisasm's register life-range table (-lrm narrow)
// says of one instruction: the registers it assigns ('^', 'x') and reads
// ('v', 'x').
type lifeRange struct {
	line       int
	text       string
	defs, uses []string
	// pair is the address of the other member of a dual-issue pair
	// ("{ A ; B }" on Maxwell and Pascal), whose row is the union of both
	// instructions; -1 otherwise.
	pair int64
}

// readLifeRanges reads the life-range tables of an nvdisasm -lrm narrow
// listing, keyed by function and address. It shares no code with the
// parser: the table is the independent oracle of the register widths.
func readLifeRanges(t *testing.T, src string) map[string]map[int64]lifeRange {
	t.Helper()
	out := map[string]map[int64]lifeRange{}
	var fn string
	var header []string // header rows of the current table (after "// |")
	var cols []map[int]string
	open := int64(-1) // address of the first member of an open pair
	for n, line := range strings.Split(src, "\n") {
		if i := strings.Index(line, ".text."); i >= 0 && strings.Contains(line, ".section") {
			name, _, _ := strings.Cut(line[i+len(".text."):], ",")
			fn, header, cols = name, nil, nil
			out[fn] = map[int64]lifeRange{}
			continue
		}
		k := strings.Index(line, "// ")
		if k < 0 || fn == "" {
			continue
		}
		table := line[k+3:]
		code := strings.TrimSpace(line[:k])
		switch {
		case strings.HasPrefix(table, "+"):
			if header != nil && cols == nil {
				cols = tableColumns(t, header)
			}
			continue
		case !strings.HasPrefix(table, "|"):
			continue
		case cols == nil:
			header = append(header, table)
			continue
		}
		if !strings.HasPrefix(code, "/*") {
			continue
		}
		e := strings.Index(code, "*/")
		off, err := strconv.ParseInt(code[2:e], 16, 64)
		if err != nil {
			t.Fatalf("line %d: address %q: %v", n+1, code[2:e], err)
		}
		lr := lifeRange{line: n + 1, text: strings.TrimSpace(code[e+2:]), pair: -1}
		switch {
		case strings.HasPrefix(lr.text, "{"):
			open = off
		case strings.HasSuffix(lr.text, "}") && open >= 0:
			lr.pair = open
			first := out[fn][open]
			first.pair = off
			out[fn][open] = first
			open = -1
		}
		cells := strings.Split(table, "|")
		for c, m := range cols {
			for pos, reg := range m {
				if c+1 >= len(cells) || pos >= len(cells[c+1]) {
					continue
				}
				switch cells[c+1][pos] {
				case '^':
					lr.defs = append(lr.defs, reg)
				case 'v':
					lr.uses = append(lr.uses, reg)
				case 'x':
					lr.defs = append(lr.defs, reg)
					lr.uses = append(lr.uses, reg)
				}
			}
		}
		sort.Strings(lr.defs)
		sort.Strings(lr.uses)
		out[fn][off] = lr
	}
	return out
}

// tableColumns maps, for each section of the table (GPR, PRED, UGPR,
// UPRED), the position of each register's column in the section's cell to
// the register's name. The last header rows give the register numbers
// digit by digit (tens above units).
func tableColumns(t *testing.T, header []string) []map[int]string {
	t.Helper()
	prefix := map[string]string{"GPR": "R", "PRED": "P", "UGPR": "UR", "UPRED": "UP"}
	names := strings.Split(header[0], "|")
	var cols []map[int]string
	for c := 1; c < len(names)-1; c++ {
		p, ok := prefix[strings.TrimSpace(names[c])]
		if !ok {
			t.Fatalf("life-range table: unknown section %q", names[c])
		}
		m := map[int]string{}
		last := strings.Split(header[len(header)-1], "|")[c]
		hash := strings.IndexByte(last, '#')
		for pos := hash + 1; pos < len(last); pos++ {
			num := ""
			for _, row := range header[1:] {
				cell := strings.Split(row, "|")[c]
				if pos < len(cell) && cell[pos] >= '0' && cell[pos] <= '9' {
					num += string(cell[pos])
				}
			}
			if num == "" {
				continue
			}
			v, _ := strconv.Atoi(num)
			m[pos] = p + strconv.Itoa(v)
		}
		cols = append(cols, m)
	}
	return cols
}

// TestWidthsAgainstLifeRanges checks, on the listings of
// testdata/widths/widths.cu compiled for sm_52 ... sm_90 (gen.sh), that
// every register nvdisasm's life-range table shows an instruction
// assigning is among the instruction's Defs, and every register it shows
// read among its Uses: an instruction writing a register group (LDSM.x4,
// HMMA, TEX, .128 loads, 64-bit pairs) lists the whole group. The
// destinations must be exactly the table's; the parser may read more
// (texture coordinates are read as the widest group their dimension
// allows), which the test logs.
func TestWidthsAgainstLifeRanges(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "widths", "sm_*.plr.sass"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no listings in testdata/widths (%v)", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			want := readLifeRanges(t, string(src))
			f, err := ParseFile(token.NewFileSet(), file, src, AllErrors)
			if err != nil {
				t.Fatalf("ParseFile: %v", err)
			}
			checked := 0
			for _, fn := range f.Funcs {
				ranges, ok := want[fn.Name]
				if !ok && strings.HasPrefix(fn.Name, "$") {
					// A subroutine ("$kernel$__cuda_sm20_…") in its
					// kernel's section.
					ranges, ok = want[strings.Split(fn.Name, "$")[1]]
				}
				if !ok {
					t.Errorf("function %s: no life-range table", fn.Name)
					continue
				}
				for _, in := range fn.Instrs {
					lr, ok := ranges[in.Offset]
					if !ok {
						t.Errorf("%s %04x %s: no life-range row", fn.Name, in.Offset, in.Text)
						continue
					}
					if strings.Contains(lr.text, " SLOT ") || in.Kind == isa.KindCall || in.Kind == isa.KindIndirectCall {
						// nvdisasm's rows of "SLOT" pairs show R1
						// alone; a call's row shows what its callee
						// reads and writes, which the callee's own
						// instructions carry.
						continue
					}
					checked++
					defs, uses := in.Defs(), in.Uses()
					if lr.pair >= 0 {
						var other *isa.Instr
						for _, o := range fn.Instrs {
							if o.Offset == lr.pair {
								other = o
							}
						}
						if other == nil {
							t.Errorf("line %d: %s: no instruction at 0x%x, its dual-issue partner", lr.line, lr.text, lr.pair)
							continue
						}
						defs = append(slices.Clone(defs), other.Defs()...)
						uses = append(slices.Clone(uses), other.Uses()...)
					}
					defs, uses = regsOnly(defs), regsOnly(uses)
					if miss := missing(lr.defs, defs); len(miss) > 0 {
						t.Errorf("line %d: %s: writes %s (life ranges), parser lists %v", lr.line, lr.text, strings.Join(miss, " "), defs)
					}
					if miss := missing(lr.uses, uses); len(miss) > 0 {
						t.Errorf("line %d: %s: reads %s (life ranges), parser lists %v", lr.line, lr.text, strings.Join(miss, " "), uses)
					}
					if extra := missing(defs, lr.defs); len(extra) > 0 {
						t.Errorf("line %d: %s: parser also writes %s", lr.line, lr.text, strings.Join(extra, " "))
					}
					if extra := missing(uses, lr.uses); len(extra) > 0 {
						t.Logf("line %d: %s: parser also reads %s", lr.line, lr.text, strings.Join(extra, " "))
					}
				}
			}
			if checked == 0 {
				t.Fatal("no instruction checked")
			}
			t.Logf("%d instructions compared", checked)
		})
	}
}

// regsOnly keeps the general, uniform and predicate registers (the
// columns of the life-range table), sorted.
func regsOnly(rs []string) []string {
	var out []string
	for _, r := range rs {
		if isRegName(r) && !isZeroReg(r) && (r[0] == 'R' || r[0] == 'P' || strings.HasPrefix(r, "UR") || strings.HasPrefix(r, "UP")) {
			out = append(out, r)
		}
	}
	sort.Strings(out)
	return out
}

// missing returns the elements of want that are not in got.
func missing(want, got []string) []string {
	var out []string
	for _, w := range want {
		if !slices.Contains(got, w) {
			out = append(out, w)
		}
	}
	return out
}
