package main

import (
	"reflect"
	"testing"
)

// TestCount checks what is counted, and with how many lines, on a fixture
// with one declaration of each kind.
func TestCount(t *testing.T) {
	got, err := count("testdata/pkg")
	if err != nil {
		t.Fatal(err)
	}
	want := []decl{
		{"F", 1},
		{"T", 4},
		{"T.M", 1},
		{"C1", 2},
		{"C3", 0},
		{"V", 0},
	}
	if !reflect.DeepEqual(want, got) {
		t.Errorf("count = %v, want %v", got, want)
	}
}

// TestPackageDoc checks the words and sentences counted in a package doc:
// prose and list items, without the heading and the code block.
func TestPackageDoc(t *testing.T) {
	words, sentences, err := packageDoc("testdata/sentences")
	if err != nil {
		t.Fatal(err)
	}
	if words != 11+9+6+8+9 || sentences != 5 {
		t.Errorf("packageDoc = %d words, %d sentences, want 43, 5", words, sentences)
	}
}
