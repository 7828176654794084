package report

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// hashField is the top-level key that holds the report's own hash.
const hashField = "report_sha256"

// Canonical returns the canonical form of a JSON report: the document
// without its top-level report_sha256 member, object members sorted by
// key (byte order), no insignificant white space, numbers as written, and
// strings escaped as encoding/json does without HTML escaping
// (docs/report.md, "Integrity").
func Canonical(data []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("report: canonical form: %w", err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("report: canonical form: not a JSON object")
	}
	delete(m, hashField)
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil { // maps are written with sorted keys
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// Hash returns the hex SHA-256 of the canonical form of a JSON report.
func Hash(data []byte) (string, error) {
	c, err := Canonical(data)
	if err != nil {
		return "", err
	}
	s := sha256.Sum256(c)
	return hex.EncodeToString(s[:]), nil
}

// Seal sets r.ReportSHA256 and returns the report as indented JSON (two
// spaces, a final newline, the characters of input.Hidden as \uXXXX
// escapes): the bytes gpuwcet analyze --format json writes.
func Seal(r *Report) ([]byte, error) {
	r.ReportSHA256 = ""
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	if r.ReportSHA256, err = Hash(data); err != nil {
		return nil, err
	}
	if data, err = json.MarshalIndent(r, "", "  "); err != nil {
		return nil, err
	}
	return append(escapeHiddenJSON(data), '\n'), nil
}

// Verify recomputes the hash of a JSON report and compares it with its
// report_sha256 member.
func Verify(data []byte) error {
	var h struct {
		SHA string `json:"report_sha256"`
	}
	if err := json.Unmarshal(data, &h); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if h.SHA == "" {
		return fmt.Errorf("report: no %s", hashField)
	}
	got, err := Hash(data)
	if err != nil {
		return err
	}
	if got != h.SHA {
		return fmt.Errorf("report: %s is %s, the content hashes to %s", hashField, h.SHA, got)
	}
	return nil
}
