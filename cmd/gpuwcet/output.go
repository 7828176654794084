package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// writeFile writes data to the file at path so that the file holds either
// what it held before or all of data, never a part (docs/report.md): the
// data goes to a temporary file in the same directory, which is synced and
// renamed over path; on any error the temporary file is removed. A path
// that exists and is not a regular file (a device such as /dev/stdout or
// /dev/full, a pipe) is written in place, since renaming over it would
// replace the device; its write errors are returned all the same. A
// symbolic link is followed: its target is replaced, not the link.
func writeFile(path string, data []byte) error {
	target := path
	if st, err := os.Stat(path); err == nil {
		switch {
		case st.IsDir():
			return &fs.PathError{Op: "write", Path: path, Err: errors.New("is a directory")}
		case !st.Mode().IsRegular():
			return writeInPlace(path, data)
		}
		if t, err := filepath.EvalSymlinks(path); err == nil {
			target = t
		}
	}
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, cause(err))
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(0o644)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, target)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, cause(err))
	}
	return nil
}

// cause is the error an *fs.PathError or *os.LinkError wraps (the name of
// the temporary file means nothing to the user), or err itself.
func cause(err error) error {
	if u := errors.Unwrap(err); u != nil {
		return u
	}
	return err
}

// writeInPlace writes data to an existing file that is not a regular file.
func writeInPlace(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// outputPath is a file a command writes, named by its flag.
type outputPath struct{ flag, path string }

// checkOutputs refuses an output that is also an input or another output
// (the same path, or the same existing file through another name or a
// link): writing it would replace a file the command reads, or write two
// outputs to one file. Paths are compared cleaned and absolute.
func checkOutputs(outs []outputPath, inputs []string) error {
	type seen struct {
		what string
		abs  string
		st   fs.FileInfo
	}
	var all []seen
	key := func(p string) (string, fs.FileInfo) {
		abs, err := filepath.Abs(p)
		if err != nil {
			abs = filepath.Clean(p)
		}
		st, _ := os.Stat(p)
		return abs, st
	}
	for _, in := range inputs {
		if in == "" {
			continue
		}
		abs, st := key(in)
		all = append(all, seen{"the input " + in, abs, st})
	}
	for _, o := range outs {
		if o.path == "" {
			continue
		}
		abs, st := key(o.path)
		if st != nil && !st.Mode().IsRegular() && !st.IsDir() {
			continue // a device or a pipe (/dev/stdout): never replaced
		}
		for _, s := range all {
			if abs == s.abs || (st != nil && s.st != nil && os.SameFile(st, s.st)) {
				return codef(ExitBadInput, "--%s %s is also %s: choose another file", o.flag, o.path, s.what)
			}
		}
		all = append(all, seen{"--" + o.flag + " " + o.path, abs, st})
	}
	return nil
}
