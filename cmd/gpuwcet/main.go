// Command gpuwcet is a static worst-case execution time analyzer for GPU
// thread blocks. See docs/cli.md.
package main

import "os"

func main() {
	os.Exit(run(os.Args, os.Stdout, os.Stderr))
}
