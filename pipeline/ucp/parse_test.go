package ucp

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// stdDecode is encoding/json's reading of b, the reference for parser.
func stdDecode(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if len(bytes.TrimLeft(b[dec.InputOffset():], " \t\r\n")) > 0 {
		return nil, errTrailing
	}
	return v, nil
}

var errTrailing = &syntaxError{msg: "trailing data"}

// checkParser compares parser with encoding/json on b.
func checkParser(t *testing.T, b []byte) {
	t.Helper()
	if nesting(b) > maxDepth {
		return // parser refuses what encoding/json would still read
	}
	p := parser{data: b}
	got, err := p.document()
	want, werr := stdDecode(b)
	if (err == nil) != (werr == nil) {
		t.Fatalf("%q: parser err = %v, encoding/json err = %v", b, err, werr)
	}
	if err != nil {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: parser = %#v, encoding/json = %#v", b, got, want)
	}
}

func TestParser(t *testing.T) {
	for _, s := range []string{
		`{}`, `[]`, ` {"a" : [1, -0.5e+3, true, false, null, "x"]} `, `"\u00e9\ud83d\ude00"`, `"\ud800"`, `"\ud800\u0041"`,
		`"\ud800x"`, "\"\xff\"", `{"a":1,"a":2}`, `01`, `-`, `1.`, `1e`, `[1,]`, `{"a"}`, `{"a":}`, `{,}`, `"\x"`, `"\u12"`,
		"\"a\tb\"", `nul`, `tru`, `[`, `{"a":1`, `{"a":1}x`, `{"a":1} `, `"\/\b\f\n\r\t\"\\"`, `1E5`, `-0`, `[[[]]]`,
		`{"ucp":{"version":"2026-08-25"}}`,
	} {
		checkParser(t, []byte(s))
	}
	deep := strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1)
	p := parser{data: []byte(deep)}
	if _, err := p.document(); err == nil || !strings.Contains(err.Error(), "nests deeper") {
		t.Errorf("deep document: err = %v", err)
	}
}

func FuzzParser(f *testing.F) {
	for _, s := range []string{`{"a":[1,"b",{"c":null}]}`, `"\ud83d\ude00"`, "\"\xe9\"", `-1.5e-3`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkParser(t, b) })
}
