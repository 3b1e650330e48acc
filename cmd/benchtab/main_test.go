package main

import (
	"bytes"
	"strings"
	"testing"
)

const input = `goos: linux
BenchmarkPingPong/putsignal-2   1000   300.0 ns/op
BenchmarkPingPong/putsignal-2   1000   340.0 ns/op
BenchmarkPingPong/putsignal-2   1000   320.0 ns/op
BenchmarkPingPong/gochan-2      1000   400.0 ns/op
BenchmarkPut/8B-2   100   20.0 ns/op   400.00 MB/s
BenchmarkCopy/8B-2  100   2.0 ns/op   4000.00 MB/s
BenchmarkBarrier/2-2  100  200 ns/op
PASS
`

func TestTable(t *testing.T) {
	res, order, err := parse(strings.NewReader(input))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := table(&out, res, order, pairs{"PingPong/putsignal=PingPong/gochan", "Put/*=Copy/*"}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| PingPong/putsignal | 320.0 | PingPong/gochan | 400.0 | 0.80× | 3 |",
		"| Put/8B | 20.0 | Copy/8B | 2.0 | 10.00× | 1 |",
		"| Barrier/2 | 200.0 | | | | 1 |",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("missing %q in\n%s", want, out.String())
		}
	}
	if err := table(&out, res, order, pairs{"Put/*=Nope/*"}); err == nil {
		t.Error("missing anchor: no error")
	}
}
