// Package assume is the assumptions ledger: every assumption a bound of
// gpuwcet can rest on, under a stable identifier, with a one-line
// statement, the reason the tool makes it, and how to discharge it (what
// the user must show, or which setting removes it).
//
// It is the single source of the assumptions: the analysis stages name
// the entries they rely on by ID (a Use, with the run's own wording when
// it has facts to add), the reports list the IDs one run needed and only
// those, numbered A1, A2, … in ledger order, and docs/assumptions.md is
// generated from Markdown (TestAssumptionsDoc keeps it in sync). The same
// document lists the known sources of unsoundness (Channels), in the
// spirit of GPUVerify's page: each interference channel a certification
// reviewer asks about, marked as assumed away or accounted for.
//
// An ID never changes meaning; an entry that no longer applies is removed
// and its ID is not reused.
package assume

import (
	"fmt"
	"slices"
)

// Origins of an assumption: what it is about.
const (
	OriginAnalysis    = "analysis"     // a choice or limit of the static analysis
	OriginModel       = "model"        // the reference timing model (docs/model.md)
	OriginHardware    = "hardware"     // the hardware description's numbers
	OriginInput       = "input"        // the inputs given to this run
	OriginEnvironment = "environment"  // the system the kernel runs on
	OriginKernel      = "kernel-level" // the kernel-level bound (--grid)
	OriginPREM        = "prem"         // a PREM schedule check
)

// Entry is one assumption of the ledger.
type Entry struct {
	ID     string // stable identifier, "A-" and upper-case words
	Origin string
	// When says which runs rest on it: "every analyze report", "with
	// --grid", "when an annotated loop bound is used", ….
	When      string
	Statement string // the assumption, one line
	Reason    string // why the tool makes it
	Discharge string // what the user must show, or which setting removes it
	Basis     string // where it is checked or justified (docs, diagnostics)
}

// Use is an assumption one run rests on: a ledger ID and, when the run
// has facts to state (the opcodes timed on a default unit, the pipeline's
// numbers, the occupancy's inputs), its own wording; empty Text means the
// ledger's statement.
type Use struct {
	ID   string
	Text string
}

// Statement returns the statement of a use: its own text, else the ledger's.
// An unknown ID panics: IDs are constants of the code, checked by the
// tests.
func (u Use) Statement() string {
	if u.Text != "" {
		return u.Text
	}
	return MustGet(u.ID).Statement
}

// U returns the use of the ledger entry id with the ledger's statement.
func U(id string) Use { return Use{ID: MustGet(id).ID} }

// Uf returns the use of entry id with the run's own wording.
func Uf(id, format string, args ...any) Use {
	return Use{ID: MustGet(id).ID, Text: fmt.Sprintf(format, args...)}
}

// All returns the ledger, in its order (the order reports number them).
func All() []Entry { return slices.Clone(ledger) }

// Get returns the entry with the given ID.
func Get(id string) (Entry, bool) {
	i, ok := index[id]
	if !ok {
		return Entry{}, false
	}
	return ledger[i], true
}

// MustGet returns the entry with the given ID and panics when there is
// none (an ID of the code that is not in the ledger: a programming error
// the tests catch).
func MustGet(id string) Entry {
	e, ok := Get(id)
	if !ok {
		panic("assume: no ledger entry " + id)
	}
	return e
}

// Rank is the position of id in the ledger (reports list their
// assumptions in this order); -1 when unknown.
func Rank(id string) int {
	if i, ok := index[id]; ok {
		return i
	}
	return -1
}

// Sort orders uses by ledger rank, keeping the order of uses of one ID,
// and drops exact duplicates (same ID and text).
func Sort(us []Use) []Use {
	out := slices.Clone(us)
	slices.SortStableFunc(out, func(a, b Use) int { return Rank(a.ID) - Rank(b.ID) })
	return slices.Compact(out)
}

var index = func() map[string]int {
	m := map[string]int{}
	for i, e := range ledger {
		m[e.ID] = i
	}
	return m
}()

// EveryAnalyze returns the uses every analyze report states: the entries
// whose When is "every analyze report", in ledger order.
func EveryAnalyze() []Use { return every(everyAnalyze) }

// EveryPREM returns the uses every prem check report states.
func EveryPREM() []Use { return every(everyPREM) }

func every(when string) []Use {
	var out []Use
	for _, e := range ledger {
		if e.When == when {
			out = append(out, Use{ID: e.ID})
		}
	}
	return out
}
