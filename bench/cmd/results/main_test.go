package main

import "testing"

// The committed tables of RESULTS.md and the README are what the committed
// raw files give.
func TestCommittedTablesAreCurrent(t *testing.T) {
	if err := run("../..", true); err != nil {
		t.Fatal(err)
	}
}
