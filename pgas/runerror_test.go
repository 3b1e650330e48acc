package pgas

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestRanges(t *testing.T) {
	for _, tc := range []struct {
		pes  []int
		want string
	}{
		{nil, ""},
		{[]int{7}, "7"},
		{[]int{0, 1, 2, 3}, "0-3"},
		{[]int{0, 1, 2, 3, 5, 7, 8, 9}, "0-3, 5, 7-9"},
		{[]int{1, 3, 5}, "1, 3, 5"},
	} {
		if got := ranges(tc.pes); got != tc.want {
			t.Errorf("ranges(%v) = %q, want %q", tc.pes, got, tc.want)
		}
	}
}

// Run's error says each distinct failure once, naming the PEs that had it
// as ranges with a count, on one line; every PE's error stays reachable.
func TestRunErrorGroupsAlikeFailures(t *testing.T) {
	same, other := errors.New("heap exhausted"), errors.New("line 1\nline 2")
	pe := func(id int, err error) *PEError { return &PEError{PE: id, Err: err} }
	end := errors.New("close failed")
	for _, tc := range []struct {
		name string
		errs []*PEError
		end  []error
		want string // "": nil
	}{
		{"none", []*PEError{nil, nil}, []error{nil}, ""},
		{"one", []*PEError{nil, pe(1, same)}, nil, "pgas: PE 1 failed: heap exhausted"},
		{"alike", []*PEError{pe(0, same), pe(1, same), pe(2, same), pe(4, same)}, nil, "pgas: PEs 0-2, 4 (4 PEs) failed: heap exhausted"},
		{"two kinds and the end", []*PEError{pe(3, other), pe(0, same), pe(1, same)}, []error{nil, end},
			`pgas: PEs 0-1 (2 PEs) failed: heap exhausted; pgas: PE 3 failed: line 1\nline 2; close failed`},
		{"only the end", nil, []error{end}, "close failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := newRunError(tc.errs, tc.end...)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("newRunError = %v, want nil", err)
				}
				return
			}
			if err == nil || err.Error() != tc.want {
				t.Fatalf("newRunError = %v, want %q", err, tc.want)
			}
			for _, e := range tc.errs {
				if e != nil && !errors.Is(err, e) {
					t.Errorf("PE %d's error is not reachable through errors.Is", e.PE)
				}
			}
			if len(tc.end) > 0 && tc.end[len(tc.end)-1] != nil && !errors.Is(err, end) {
				t.Errorf("the end's error is not reachable")
			}
		})
	}
}

// A world of 4096 host PEs that all fail alike returns one sentence, not
// 4096 lines, and every PE's *PEError.
func TestRunErrorManyPEs(t *testing.T) {
	if testing.Short() {
		t.Skip("4096 PEs")
	}
	const n = 4096
	err := Run(context.Background(), Config{Backend: "host", PEs: n, HeapSize: 128 << 10}, func(ctx context.Context, pe *PE) error {
		return errors.New("NewChan: does not fit")
	})
	var re *RunError
	if !errors.As(err, &re) || len(re.PEs) != n {
		t.Fatalf("Run = %v, want a *RunError of %d PEs", err, n)
	}
	if want := "pgas: PEs 0-4095 (4096 PEs) failed: NewChan: does not fit"; err.Error() != want {
		t.Errorf("Run's error = %q, want %q", err, want)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("Run's error has more than one line")
	}
}
