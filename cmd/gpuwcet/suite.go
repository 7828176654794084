package main

import (
	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
)

// suite is the registry of analyses, in dependency order. To add a pass,
// write a package exporting an Analyzer and add it here with one line
// saying why it is in the suite.
var suite = []*pass.Analyzer{
	cfg.Analyzer, // basic blocks, dominators and loops: the base of every later pass
}
