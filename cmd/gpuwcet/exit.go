package main

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"
)

// Exit codes, documented in docs/cli.md. When several outcomes apply, the
// highest code wins (see worse).
const (
	ExitOK        = 0 // every requested result computed; all checks pass
	ExitBadInput  = 1 // bad input, usage or internal error
	ExitUnbounded = 2 // not bounded: missing loop bound, unresolved indirect branch, irreducible loop
	ExitVerdict   = 3 // a bound exceeds its --deadline, or a schedule check failed
	ExitUnsound   = 4 // an observed time exceeds the bound: a defect of the description or the analyzer
)

// exitError is an error carrying an exit code; it implements cli.ExitCoder.
type exitError struct {
	code int
	err  error
}

var _ cli.ExitCoder = (*exitError)(nil)

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) ExitCode() int { return e.code }
func (e *exitError) Unwrap() error { return e.err }

// withCode wraps err with an exit code (nil stays nil).
func withCode(code int, err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: code, err: err}
}

// codef returns an error with an exit code and a formatted message.
func codef(code int, format string, args ...any) error {
	return &exitError{code: code, err: fmt.Errorf(format, args...)}
}

// worse returns the higher of two exit codes.
func worse(a, b int) int {
	if a > b {
		return a
	}
	return b
}

// exitCode maps an error returned by a command to the process exit code.
func exitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var ec cli.ExitCoder
	if errors.As(err, &ec) {
		return ec.ExitCode()
	}
	return ExitBadInput
}
