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
