package main

import (
	"github.com/gpuwcet/gpuwcet/bound"
	"github.com/gpuwcet/gpuwcet/bound/static"
	"github.com/gpuwcet/gpuwcet/cfg"
	"github.com/gpuwcet/gpuwcet/cfg/pass"
	"github.com/gpuwcet/gpuwcet/phases"
)

// suite is the registry of analyses, in dependency order. To add a pass,
// write a package exporting an Analyzer and add it here with one line
// saying why it is in the suite.
var suite = []*pass.Analyzer{
	cfg.Analyzer,    // basic blocks, dominators and loops: the base of every later pass
	phases.Analyzer, // isolated exec/idle phase profile of every warp (timing model, docs/model.md)
	bound.Analyzer,  // block bound per barrier section from the phase profiles
	static.Analyzer, // sound whole-kernel static bound over every path (gpuwcet analyze)
}
