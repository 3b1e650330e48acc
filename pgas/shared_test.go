package pgas

import (
	"testing"

	"github.com/symchan/symchan/internal/abi"
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
		{"SignalSet", uint64(driver.SignalSet), abi.SignalSet},
		{"SignalAdd", uint64(driver.SignalAdd), abi.SignalAdd},
		{"CmpEQ", uint64(driver.CmpEQ), abi.CmpEQ},
		{"CmpNE", uint64(driver.CmpNE), abi.CmpNE},
		{"CmpGT", uint64(driver.CmpGT), abi.CmpGT},
		{"CmpGE", uint64(driver.CmpGE), abi.CmpGE},
		{"CmpLT", uint64(driver.CmpLT), abi.CmpLT},
		{"CmpLE", uint64(driver.CmpLE), abi.CmpLE},
		{"ReduceSum", uint64(ReduceSum), abi.ReduceSum},
		{"ReduceProd", uint64(ReduceProd), abi.ReduceProd},
		{"ReduceMin", uint64(ReduceMin), abi.ReduceMin},
		{"ReduceMax", uint64(ReduceMax), abi.ReduceMax},
		{"ReduceAnd", uint64(ReduceAnd), abi.ReduceAnd},
		{"ReduceOr", uint64(ReduceOr), abi.ReduceOr},
		{"ReduceXor", uint64(ReduceXor), abi.ReduceXor},
	} {
		if c.goNum != c.cuhNum {
			t.Errorf("%s is %d in Go and %d in symchan.cuh", c.name, c.goNum, c.cuhNum)
		}
	}
}
