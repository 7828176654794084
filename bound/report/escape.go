package report

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/gpuwcet/gpuwcet/cfg/input"
)

// Markdown escaping. Every string that comes from an input (kernel and
// file names, descriptions, facts rationales, diagnostics quoting a
// listing) goes through one of these, so that it shows as written and
// cannot close a code span or a block, inject HTML, links or emphasis,
// break a table row, or hide characters (input.Hidden: escape sequences,
// bidirectional controls) from the reader.

// code formats s as an inline code span in a table cell ("" stays
// empty): on one line, '|' escaped for the table, delimited by more
// backticks than the longest run inside it.
func code(s string) string {
	if s == "" {
		return ""
	}
	return codeSpan(strings.ReplaceAll(input.OneLine(s), "|", `\|`))
}

// icode formats s as an inline code span outside a table.
func icode(s string) string {
	if s == "" {
		return ""
	}
	return codeSpan(input.OneLine(s))
}

func codeSpan(s string) string {
	n := longestRun(s, '`')
	if n == 0 && !strings.HasPrefix(s, " ") {
		return "`" + s + "`"
	}
	// A span whose content starts and ends with a space loses one of
	// each (CommonMark 6.1): pad, so that backticks at the ends and
	// leading spaces are kept.
	fence := strings.Repeat("`", n+1)
	return fence + " " + s + " " + fence
}

func longestRun(s string, c byte) int {
	best, cur := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			cur++
			best = max(best, cur)
		} else {
			cur = 0
		}
	}
	return best
}

// mdSpecial are the characters escaped with a backslash in Markdown text:
// those that start code, emphasis, strike-through, links, images, HTML,
// entities, math and mentions, the table separator, and the backslash.
const mdSpecial = "\\`*_[]<>|~&$@"

// cell escapes s as Markdown text on one line (a table cell, or inline in
// a sentence).
func cell(s string) string {
	s = input.OneLine(s)
	if !strings.ContainsAny(s, mdSpecial) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(mdSpecial, s[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// para escapes s as Markdown text that may start a line (a list item's
// text): cell, and a leading heading, list, quote or setext marker
// escaped.
func para(s string) string {
	s = cell(s)
	t := strings.TrimLeft(s, " ")
	if t == "" {
		return s
	}
	if strings.IndexByte("#-+=", t[0]) >= 0 {
		return `\` + t
	}
	// An ordered-list marker: digits then '.' or ')'.
	i := 0
	for i < len(t) && i < 9 && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i > 0 && i < len(t) && (t[i] == '.' || t[i] == ')') {
		return t[:i] + `\` + t[i:]
	}
	return t
}

// fenced returns body in a fenced code block of the given info string
// that no line of body can close: the fence is longer than any backtick
// run in it.
func fenced(info, body string) string {
	fence := strings.Repeat("`", max(3, longestRun(body, '`')+1))
	return fence + info + "\n" + body + "\n" + fence + "\n"
}

// visibleStrings makes the Hidden characters of every string reachable
// from v (a pointer) visible, in place: the SARIF and JUnit documents are
// shown by viewers that would act on them.
func visibleStrings(v any) { visibleValue(reflect.ValueOf(v)) }

func visibleValue(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			e := v.Elem()
			if v.Kind() == reflect.Interface && e.Kind() == reflect.String {
				if v.CanSet() {
					v.Set(reflect.ValueOf(input.Visible(e.String())).Convert(e.Type()))
				}
				return
			}
			visibleValue(e)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				visibleValue(v.Field(i))
			}
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			visibleValue(v.Index(i))
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(v.MapIndex(k))
			visibleValue(e)
			nk := k
			if k.Kind() == reflect.String {
				nk = reflect.ValueOf(input.Visible(k.String())).Convert(k.Type())
			}
			v.SetMapIndex(k, reflect.Value{})
			v.SetMapIndex(nk, e)
		}
	case reflect.String:
		if v.CanSet() {
			v.SetString(input.Visible(v.String()))
		}
	}
}

// escapeHiddenJSON writes the Hidden characters that encoding/json leaves
// as they are (DEL, C1 and Unicode format characters) as \uXXXX escapes
// in JSON text: the same document, which shows no bidirectional control
// when printed.
func escapeHiddenJSON(data []byte) []byte {
	s := string(data)
	if !strings.ContainsFunc(s, func(r rune) bool { return r >= 0x7f && input.Hidden(r) }) {
		return data
	}
	var b strings.Builder
	for _, r := range s {
		if r >= 0x7f && input.Hidden(r) {
			fmt.Fprintf(&b, `\u%04x`, r)
		} else {
			b.WriteRune(r)
		}
	}
	return []byte(b.String())
}
