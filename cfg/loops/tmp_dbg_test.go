package loops

import (
	"go/token"
	"os"
	"regexp"
	"strconv"
	"testing"

	"github.com/gpuwcet/gpuwcet/cfg/cfgtest"
	"github.com/gpuwcet/gpuwcet/cfg/load"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
)

func TestTmpDbg(t *testing.T) {
	src, err := cfgtest.ReadGzip(os.Getenv("DBG_FILE"))
	if err != nil {
		src, err = os.ReadFile(os.Getenv("DBG_FILE"))
		if err != nil {
			t.Skip()
		}
	}
	fset := token.NewFileSet()
	file, err := load.File(fset, "x", src, load.Auto)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(os.Getenv("DBG_N"))
	l := pass.Launch{Block: [3]int{64, 1, 1}, Grid: [3]int{2, 1, 1}, Args: map[string]int64{}}
	for i := 0; i < 8; i++ {
		l.Args[os.Getenv("DBG_FUNC")+"_param_"+string(rune('0'+i))] = int64(n)
	}
	res, err := pass.Run([]*pass.Analyzer{Analyzer}, file, pass.Options{Launch: l, Funcs: regexp.MustCompile("^" + os.Getenv("DBG_FUNC") + "$")})
	if err != nil {
		t.Fatal(err)
	}
	act := res.Get(Analyzer, res.Funcs[0])
	if act.Err != nil {
		t.Fatal(act.Err)
	}
	for _, lb := range act.Result.(*Result).Loops {
		t.Logf("%v %v %s", lb.Key, lb.Bound, lb.Why)
	}
}
