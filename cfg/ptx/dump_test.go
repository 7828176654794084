package ptx

import (
	"go/token"
	"os"
	"testing"
)

// TestDump prints the dump of the file named by $PTXDUMP (a debugging aid):
//
//	PTXDUMP=path/to/file.ptx go test -run TestDump ./cfg/ptx
func TestDump(t *testing.T) {
	name := os.Getenv("PTXDUMP")
	if name == "" {
		t.Skip("set PTXDUMP=file.ptx to print a dump")
	}
	src, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	f, err := ParseFile(token.NewFileSet(), name, src, AllErrors)
	if err != nil {
		t.Error(err)
	}
	if err := Fprint(os.Stdout, f); err != nil {
		t.Fatal(err)
	}
	for _, w := range f.Warnings {
		t.Log("warning:", w)
	}
}
