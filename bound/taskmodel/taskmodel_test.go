package taskmodel

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwcet/gpuwcet/bound/kernel"
	"github.com/gpuwcet/gpuwcet/bound/report"
)

// sample returns a report with two bounded kernels (one with a name MAST
// cannot take as is), a persistent one and one not computed.
func sample() *report.Report {
	r := &report.Report{Tool: report.Tool{Name: "gpuwcet", Version: "test"}, ReportSHA256: "abc",
		Inputs: []report.Input{{Path: "k.ptx", SHA256: "123", Kind: "ptx"}}, HW: report.HW{Name: "hw", SHA256: "456"}}
	mk := func(name string, upper, lower []int64) report.Kernel {
		j := &kernel.JSON{Status: kernel.StatusBounded, Grid: [3]int{64, 1, 1}, Block: [3]int{256, 1, 1}, Blocks: 64, Arch: "sm_62", SMs: len(upper), ClockMHz: 1300,
			Platform: &kernel.PlatformJSON{Name: "jetson-tx2", SMs: 2, ClockMHz: 1300, Source: "data sheet"},
			Launch:   &kernel.OverheadJSON{MaxNS: 49000, Kind: "measured", Source: "CuPer"}, Conditional: true,
			Assumptions: []string{"a"}, Exclusions: []string{}}
		j.Occupancy.Lo, j.Occupancy.Hi = 2, 3
		for i := range upper {
			j.Bounds = append(j.Bounds, kernel.PointJSON{SMs: i + 1, UpperCycles: upper[i] * 13 / 10, LowerCycles: lower[i] * 13 / 10,
				UpperNS: upper[i], LowerNS: lower[i], TotalUpperNS: upper[i] + 49000, TotalLowerNS: lower[i], DispatchCoeff: 3})
		}
		k := report.Kernel{KernelLevel: j}
		k.Name = name
		return k
	}
	r.Kernels = append(r.Kernels, mk("saxpy", []int64{9000, 5000}, []int64{1000, 600}))
	r.Kernels = append(r.Kernels, mk("_Z6reducePfS_i", []int64{7000, 4000}, []int64{900, 500}))
	p := report.Kernel{KernelLevel: &kernel.JSON{Status: kernel.StatusPersistent, Grid: [3]int{1, 1, 1}, Block: [3]int{128, 1, 1}, Blocks: 1,
		Persistent: &kernel.PersistentJSON{Loop: "k.ptx:10:1", ItemCycles: 1300, ItemNS: 1000, ItemLowerCycles: 130, Scope: "one item"}}}
	p.Name = "persist"
	r.Kernels = append(r.Kernels, p)
	n := report.Kernel{KernelLevel: &kernel.JSON{Status: kernel.StatusNotComputed, Reason: "no SM count", Blocks: 1}}
	n.Name = "plain"
	r.Kernels = append(r.Kernels, n)
	return r
}

// TestRoundTrip writes the task model and the MAST model of a report and
// reads both back: the JSON decodes strictly to the same model, and every
// MAST operation carries its task's times on the most SMs, in ns.
func TestRoundTrip(t *testing.T) {
	m, err := FromReport(sample())
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Tasks) != 4 || m.Tasks[0].Times[1].WCETNS != 5000+49000 || m.Tasks[0].Times[1].DeviceWCETNS != 5000 || m.Platform == nil {
		t.Fatalf("model: %+v", m)
	}
	var b bytes.Buffer
	if err := WriteJSON(&b, m); err != nil {
		t.Fatal(err)
	}
	back, err := ParseJSON(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(m, back); diff != "" {
		t.Errorf("JSON round trip (-wrote +read):\n%s", diff)
	}
	b.Reset()
	if err := WriteMAST(&b, m, 0); err != nil {
		t.Fatal(err)
	}
	objs, err := ReadMAST("m.mast", b.Bytes())
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	ops, err := MASTOperations(objs)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]float64{"saxpy": {54000, 600}, "Z6reducePfS_i": {53000, 500}, "item_persist": {1000, 0}}
	if diff := cmp.Diff(want, ops); diff != "" {
		t.Errorf("MAST operations (-want +got):\n%s", diff)
	}
	kinds := map[string]int{}
	for _, o := range objs {
		kinds[o.Kind]++
		switch o.Kind {
		case "Scheduling_Server":
			if o.Fields["scheduler"].Atom != "gpu_scheduler" || o.Fields["server_sched_parameters"].Record["type"].Atom != "Non_Preemptible_FP_Policy" {
				t.Errorf("server %+v", o)
			}
		case "Scheduler":
			if o.Fields["host"].Atom != "gpu" {
				t.Errorf("scheduler %+v", o)
			}
		}
	}
	if diff := cmp.Diff(map[string]int{"Model": 1, "Processing_Resource": 1, "Scheduler": 1, "Scheduling_Server": 3, "Operation": 3}, kinds); diff != "" {
		t.Errorf("MAST objects (-want +got):\n%s", diff)
	}
	// One SM: the times of k = 1.
	b.Reset()
	if err := WriteMAST(&b, m, 1); err != nil {
		t.Fatal(err)
	}
	objs, _ = ReadMAST("m1.mast", b.Bytes())
	ops, _ = MASTOperations(objs)
	if ops["saxpy"] != [2]float64{58000, 1000} {
		t.Errorf("on 1 SM: saxpy %v", ops["saxpy"])
	}
}

func TestReadMASTErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"Operation (Name => a", "m:1: expected , or ) after the value of Name"},
		{"Operation (Name a);", `m:1: expected => after Name, got "a"`},
		{"Operation (Name => a)", "m:1: expected ; after the Operation object"},
		{"(Name => a);", "expected an object kind"},
		{"Operation (Name => a, Name => b);", "field Name given twice"},
		{"Operation (\n Name => a, X => #);", "m:2: unexpected character '#'"},
		{"Operation (Name => a, Worst_Case_Execution_Time => x);", "not a number"},
	} {
		objs, err := ReadMAST("m", []byte(c.src))
		if err == nil {
			_, err = MASTOperations(objs)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ReadMAST(%q) = %v, want %q", c.src, err, c.want)
		}
	}
	if _, err := ParseJSON([]byte(`{"schema":"gpuwcet-task-model/1","extra":1}`)); err == nil {
		t.Errorf("ParseJSON accepted an unknown field")
	}
	if _, err := ParseJSON([]byte(`{"schema":"other"}`)); err == nil || !strings.Contains(err.Error(), "want \"gpuwcet-task-model/1\"") {
		t.Errorf("ParseJSON of another schema: %v", err)
	}
	if err := WriteMAST(&bytes.Buffer{}, &Model{}, 0); err == nil {
		t.Errorf("WriteMAST of a model without bounded tasks: no error")
	}
}

// TestSchemaMatchesStructs checks docs/task-model.schema.json against the
// Go types: every object lists exactly the JSON fields of its type, and
// requires exactly those without omitempty.
func TestSchemaMatchesStructs(t *testing.T) {
	data, err := os.ReadFile("../../docs/task-model.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]any
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	defs := s["$defs"].(map[string]any)
	props := func(o map[string]any) map[string]any { return o["properties"].(map[string]any) }
	obj := func(o map[string]any, key string) map[string]any { return props(o)[key].(map[string]any) }
	task := defs["task"].(map[string]any)
	for _, c := range []struct {
		name   string
		schema map[string]any
		typ    any
	}{
		{"model", s, Model{}}, {"tool", obj(s, "tool"), Tool{}}, {"input", obj(s, "inputs")["items"].(map[string]any), Input{}},
		{"hw", obj(s, "hw"), HW{}}, {"platform", obj(s, "platform"), Platform{}}, {"task", task, Task{}},
		{"time", defs["time"].(map[string]any), Time{}}, {"launch_overhead", obj(task, "launch_overhead"), Overhead{}},
		{"dispatch_latency", obj(task, "dispatch_latency"), Dispatch{}}, {"persistent_item", obj(task, "persistent_item"), Item{}},
	} {
		var fields, required []string
		rt := reflect.TypeOf(c.typ)
		for i := range rt.NumField() {
			tag := rt.Field(i).Tag.Get("json")
			name, opts, _ := strings.Cut(tag, ",")
			fields = append(fields, name)
			if opts != "omitempty" {
				required = append(required, name)
			}
		}
		var sf, sr []string
		for k := range props(c.schema) {
			sf = append(sf, k)
		}
		for _, r := range c.schema["required"].([]any) {
			sr = append(sr, r.(string))
		}
		slices.Sort(fields)
		slices.Sort(required)
		slices.Sort(sf)
		slices.Sort(sr)
		if diff := cmp.Diff(fields, sf); diff != "" {
			t.Errorf("%s: properties (-Go +schema):\n%s", c.name, diff)
		}
		if diff := cmp.Diff(required, sr); diff != "" {
			t.Errorf("%s: required (-Go +schema):\n%s", c.name, diff)
		}
	}
}

func FuzzReadMAST(f *testing.F) {
	m, _ := FromReport(sample())
	var b bytes.Buffer
	_ = WriteMAST(&b, m, 0)
	f.Add(b.Bytes())
	f.Add([]byte("Operation (Name => a, Worst_Case_Execution_Time => 1.5e3, List => ((X => 1), (Y => 2)));"))
	f.Fuzz(func(t *testing.T, data []byte) {
		objs, err := ReadMAST("f", data)
		if err != nil {
			return
		}
		for _, o := range objs {
			if o.Kind == "" || o.Fields == nil {
				t.Fatalf("object without kind or fields: %+v", o)
			}
		}
		_, _ = MASTOperations(objs)
	})
}
