package sql

import (
	"io/fs"
	"strings"
	"testing"
)

func TestFiles(t *testing.T) {
	names, err := fs.Glob(FS(), "*.sql")
	if err != nil {
		t.Fatal(err)
	}
	if len(names) == 0 {
		t.Fatal("no SQL files embedded")
	}
	for _, name := range names {
		if strings.TrimSpace(Text(name)) == "" {
			t.Errorf("%s is empty", name)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("Text of a missing file did not panic")
		}
	}()
	Text("missing.sql")
}
