package evidence

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpuwcet/gpuwcet/bound/static"
	"github.com/gpuwcet/gpuwcet/cfg/loops"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/divergence"
	"github.com/gpuwcet/gpuwcet/hwdesc"
	"github.com/gpuwcet/gpuwcet/phases/sim"
	"github.com/gpuwcet/gpuwcet/phases/sim/simt"
)

var (
	flagCases  = flag.Int("cases", 0, "cases of TestStaticBoundAgainstSimulation (0: 5,000, or 10^6 with GPUWCET_LONG=1)")
	flagBudget = flag.Duration("budget", 0, "stop TestStaticBoundAgainstSimulation after this time (0: none; GPUWCET_LONG=1 defaults to 20m)")
	flagFirst  = flag.Uint64("first", 1, "first case seed")
)

func longMode() bool { return os.Getenv("GPUWCET_LONG") == "1" }

// caseResult is the outcome of one case.
type caseResult struct {
	refused    string // reason class when the analysis refused the kernel
	runs       int    // simulations
	worst      float64
	violated   string // a description of the first run above the bound
	exhaustive int    // 1 when every order of the lane groups was enumerated
	shapes     map[string]int
	divergent  int // executions in which lanes of a warp disagreed
}

var presets = []string{"ecrts25-orin-5", "ecrts25-orin-25", "ecrts25-orin-200"}

var presetCache sync.Map

// preset resolves a built-in description once (the cases only read it).
func preset(name string) *hwdesc.Desc {
	if hw, ok := presetCache.Load(name); ok {
		return hw.(*hwdesc.Desc)
	}
	hw, err := hwdesc.Resolve(name)
	if err != nil {
		panic(err)
	}
	presetCache.Store(name, hw)
	return hw
}

// oneCase builds and checks the case of seed: a random structured PTX
// kernel (loops with bounds, if/else, lane-dependent and warp-dependent
// branches, uniform branches on an argument, divergent breaks, barriers at
// top level, in uniform loops and under uniform branches, device calls), a
// random description with shared groups and a [pipeline] table (or an
// ECRTS preset), 1-4 warps (the last one sometimes partial); the static
// bound as gpuwcet analyze computes it; three executions drawn on the SIMT
// stack (random side order, one with every loop at its bound) and a
// fourth with the lanes leaving a loop run last; each
// simulated under LRR, GTO, random, and (every 8th case) the adversarial
// search with a budget of 8, under reach semantics (and drain every 4th).
func oneCase(seed uint64) caseResult {
	c := caseOf(seed)
	threads := c.threads
	a, err := c.analyze()
	if err != nil {
		var re *divergence.RefusedError
		switch {
		case errors.As(err, &re):
			return caseResult{refused: "divergence: serialized divergent loop"}
		case static.Unbounded(err):
			msg := err.Error()
			if i := strings.LastIndex(msg, ": "); i >= 0 {
				msg = msg[i+2:]
			}
			return caseResult{refused: "static: " + trimReason(msg)}
		}
		return caseResult{violated: fmt.Sprintf("analysis error: %v", err)}
	}
	r := c.r
	res := caseResult{shapes: c.k.Shapes}
	bnd := a.Report.Bound
	pols := []sim.Policy{{Kind: sim.LRR}, {Kind: sim.GTO}, {Kind: sim.Random, Seed: seed}}
	if seed%8 == 0 {
		pols = append(pols, sim.Policy{Kind: sim.Adversarial, Seed: seed, Budget: 8})
	}
	modes := []sim.BarrierMode{sim.BarrierReach}
	if seed%4 == 1 {
		modes = append(modes, sim.BarrierDrain)
	}
	// check simulates one execution under the policies and barrier modes.
	check := func(blk *simt.Block, what string, pols []sim.Policy, modes []sim.BarrierMode) error {
		if blk.Divergences > 0 {
			res.divergent++
		}
		for _, mode := range modes {
			p, err := blk.Program(a.HW, mode)
			if err != nil {
				return fmt.Errorf("%s: %v", what, err)
			}
			runs, err := Simulate(p, seed, pols)
			if err != nil {
				return fmt.Errorf("%s: simulate: %v", what, err)
			}
			for _, x := range runs {
				res.runs++
				if bnd > 0 {
					res.worst = max(res.worst, float64(x.Makespan)/float64(bnd))
				}
				if x.Makespan > bnd && res.violated == "" {
					res.violated = fmt.Sprintf("makespan %d > static bound %d: %s, policy %s (witness %s), barriers %v, %d threads",
						x.Makespan, bnd, what, x.Policy, x.Witness, mode, threads)
				}
			}
		}
		return nil
	}
	// The same inputs (memory, arguments not given: seed) in every order
	// of the lane groups a stack may choose; exhaustively when there are
	// few.
	dseed := seed * 4
	var orders []int
	for _, o := range simt.Orders {
		blk, err := a.Judge.Run(a.Launch, simt.Options{Order: o, Seed: dseed, MaxInstrs: 1 << 16})
		if err != nil {
			return caseResult{violated: fmt.Sprintf("execution (seed %d, order %v): %v", dseed, o, err)}
		}
		orders = blk.Orders
		if err := check(blk, fmt.Sprintf("execution seed %d, order %v", dseed, o), pols, modes); err != nil {
			return caseResult{violated: err.Error()}
		}
	}
	n := 1
	for _, k := range orders {
		n = min(n*k, 1<<20)
	}
	if n >= 2 && n <= 32 {
		res.exhaustive++
		i := 0
		_, err := a.Judge.Exhaustive(a.Launch, simt.Options{Seed: dseed, MaxInstrs: 1 << 16}, 32, func(blk *simt.Block) error {
			i++
			return check(blk, fmt.Sprintf("execution seed %d, order sequence %d of %d", dseed, i, n), pols[:2], modes[:1])
		})
		if err != nil {
			return caseResult{violated: err.Error()}
		}
	}
	// Other inputs.
	for d := 1; d < 3; d++ {
		opt := simt.Options{Order: simt.Orders[r.IntN(len(simt.Orders))], Seed: seed*4 + uint64(d), MaxLoops: d == 2, MaxInstrs: 1 << 16}
		blk, err := a.Judge.Run(a.Launch, opt)
		if err != nil {
			return caseResult{violated: fmt.Sprintf("execution (seed %d, order %v): %v", opt.Seed, opt.Order, err)}
		}
		if err := check(blk, fmt.Sprintf("execution seed %d, order %v, max loops %v", opt.Seed, opt.Order, opt.MaxLoops), pols, modes); err != nil {
			return caseResult{violated: err.Error()}
		}
	}
	return res
}

func trimReason(s string) string {
	for _, k := range []string{"barrier", "irreducible", "no bound", "recursion"} {
		if strings.Contains(s, k) {
			return k
		}
	}
	if len(s) > 60 {
		s = s[:60]
	}
	return s
}

// testCase is the random case of a seed: a kernel with its arguments and
// flow facts, a description, the block size.
type testCase struct {
	seed    uint64
	r       *rand.Rand // the case's source, after the draws below
	k       *Kernel
	hw      *hwdesc.Desc
	preset  bool
	threads int
}

func caseOf(seed uint64) *testCase {
	r := rand.New(rand.NewPCG(seed, 0xe1de7ce))
	c := &testCase{seed: seed, r: r, k: Generate(r, GenConfig{})}
	if r.IntN(4) == 0 {
		c.hw = preset(presets[r.IntN(len(presets))])
		c.preset = true
	} else {
		c.hw = RandomHW(r)
	}
	warps := 1 + r.IntN(4)
	c.threads = 32 * warps
	if r.IntN(4) == 0 {
		c.threads -= 1 + r.IntN(31)
	}
	return c
}

// facts decodes the case's flow facts (nil when it has none).
func (c *testCase) facts() (*loops.Facts, error) {
	if len(c.k.Facts) == 0 {
		return nil, nil
	}
	return loops.DecodeFacts("k.facts.toml", []byte(c.k.FactsTOML(loops.SHA256([]byte(c.k.Src)))))
}

func (c *testCase) analyze() (*Analysis, error) {
	facts, err := c.facts()
	if err != nil {
		return nil, err
	}
	return Analyze("k.ptx", []byte(c.k.Src), "k", c.hw, pass.Launch{Block: [3]int{c.threads, 1, 1}, Args: c.k.Args}, facts)
}

// describe prints everything needed to replay a failing case.
func describe(seed uint64) string {
	c := caseOf(seed)
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "case seed %d (replay: go test ./bound/evidence -run TestStaticBoundAgainstSimulation -first %d -cases 1), %d threads, arguments %v\n%s", seed, seed, c.threads, c.k.Args, c.k.Src)
	if len(c.k.Facts) > 0 {
		buf.WriteString(c.k.FactsTOML(loops.SHA256([]byte(c.k.Src))))
	}
	if c.preset {
		fmt.Fprintf(&buf, "hw %s\n", c.hw.Name)
	} else {
		_ = hwdesc.Encode(&buf, c.hw)
	}
	return buf.String()
}

// TestStaticBoundAgainstSimulation is the soundness property of the static
// multi-path bound: no drawn execution of a random kernel, under any
// policy, ends after the bound gpuwcet analyze computes.
func TestStaticBoundAgainstSimulation(t *testing.T) {
	n := 5000
	var budget time.Duration
	if longMode() {
		n, budget = 1_000_000, 20*time.Minute
	}
	if *flagCases > 0 {
		n = *flagCases
	}
	if *flagBudget > 0 {
		budget = *flagBudget
	}
	start := time.Now()
	var next atomic.Uint64
	next.Store(*flagFirst)
	last := *flagFirst + uint64(n)
	var mu sync.Mutex
	var done, runs, bad, exhaustive, divergent int
	shapes := map[string]int{}
	var worst float64
	var worstSeed uint64
	refused := map[string]int{}
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				s := next.Add(1) - 1
				if s >= last || budget > 0 && time.Since(start) > budget {
					return
				}
				res := oneCase(s)
				mu.Lock()
				done++
				runs += res.runs
				exhaustive += res.exhaustive
				divergent += res.divergent
				for k, v := range res.shapes {
					shapes[k] += v
				}
				if res.refused != "" {
					refused[res.refused]++
				}
				if res.worst > worst {
					worst, worstSeed = res.worst, s
				}
				if res.violated != "" {
					bad++
					if bad <= 3 {
						t.Errorf("case %d: %s\n%s", s, res.violated, describe(s))
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	t.Logf("%d cases (%d refused: %v), %d simulations, %d violations, largest makespan/bound %.3f (case %d), %v; %d cases with every order of the lane groups enumerated, %d executions with divergence; constructs %v",
		done, sum(refused), refused, runs, bad, worst, worstSeed, time.Since(start).Round(time.Millisecond), exhaustive, divergent, shapes)
	if done-sum(refused) < done/2 {
		t.Errorf("only %d of %d cases analysed: the generator degenerated", done-sum(refused), done)
	}
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
