package pgas

import (
	"testing"

	"github.com/symchan/symchan/kernels"
	"github.com/symchan/symchan/pgas/driver"
)

// The numbers pgas passes to the device are symchan.cuh's, as package
// kernels generates them from the header: signal operations, comparisons
// and reduction operators.
func TestNumbersSharedWithCUDA(t *testing.T) {
	for _, c := range []struct {
		name          string
		goNum, cuhNum uint64
	}{
		{"SignalSet", uint64(driver.SignalSet), kernels.SignalSet},
		{"SignalAdd", uint64(driver.SignalAdd), kernels.SignalAdd},
		{"CmpEQ", uint64(driver.CmpEQ), kernels.CmpEQ},
		{"CmpNE", uint64(driver.CmpNE), kernels.CmpNE},
		{"CmpGT", uint64(driver.CmpGT), kernels.CmpGT},
		{"CmpGE", uint64(driver.CmpGE), kernels.CmpGE},
		{"CmpLT", uint64(driver.CmpLT), kernels.CmpLT},
		{"CmpLE", uint64(driver.CmpLE), kernels.CmpLE},
		{"ReduceSum", uint64(ReduceSum), kernels.ReduceSum},
		{"ReduceProd", uint64(ReduceProd), kernels.ReduceProd},
		{"ReduceMin", uint64(ReduceMin), kernels.ReduceMin},
		{"ReduceMax", uint64(ReduceMax), kernels.ReduceMax},
		{"ReduceAnd", uint64(ReduceAnd), kernels.ReduceAnd},
		{"ReduceOr", uint64(ReduceOr), kernels.ReduceOr},
		{"ReduceXor", uint64(ReduceXor), kernels.ReduceXor},
	} {
		if c.goNum != c.cuhNum {
			t.Errorf("%s is %d in Go and %d in symchan.cuh", c.name, c.goNum, c.cuhNum)
		}
	}
}
