package pgas

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/symchan/symchan/internal/errtext"
)

// A RunError is what Run (and Handle.Err) returns when PEs of this process
// failed or the world's end failed: each failing PE's *PEError, in PE
// order, and the errors of the world's end (a backend's close). errors.Is
// and errors.As see every one of them.
//
// Its text, on one line, says each distinct failure once: PEs that failed
// with the same text are named together, as ranges with a count ("pgas:
// PEs 0-511, 1024 (513 PEs) failed: …"), so that a world of thousands of
// PEs failing alike reads as one sentence, not thousands.
type RunError struct {
	PEs []*PEError // the failing PEs' errors, by PE
	End []error    // what failed at the world's end, after the PEs returned
}

// newRunError is the error of a world whose PEs returned errs (nil for
// those that did not fail) and whose end returned end: nil when there is
// none.
func newRunError(errs []*PEError, end ...error) error {
	e := &RunError{}
	for _, pe := range errs {
		if pe != nil {
			e.PEs = append(e.PEs, pe)
		}
	}
	slices.SortFunc(e.PEs, func(a, b *PEError) int { return a.PE - b.PE })
	for _, err := range end {
		if err != nil {
			e.End = append(e.End, err)
		}
	}
	if len(e.PEs) == 0 && len(e.End) == 0 {
		return nil
	}
	return e
}

// Error names each distinct failure once, with the PEs that had it.
func (e *RunError) Error() string {
	type group struct {
		first *PEError // its text is the group's
		pes   []int
	}
	var groups []*group
	byText := map[string]*group{}
	for _, pe := range e.PEs {
		text := pe.cause()
		g := byText[text]
		if g == nil {
			g = &group{first: pe}
			byText[text] = g
			groups = append(groups, g)
		}
		g.pes = append(g.pes, pe.PE)
	}
	parts := make([]string, 0, len(groups)+len(e.End))
	for _, g := range groups {
		if len(g.pes) == 1 {
			parts = append(parts, g.first.Error())
		} else {
			parts = append(parts, fmt.Sprintf("pgas: PEs %s (%d PEs) failed: %s", ranges(g.pes), len(g.pes), g.first.cause()))
		}
	}
	for _, err := range e.End {
		parts = append(parts, errtext.OneLine(err.Error()))
	}
	return strings.Join(parts, "; ")
}

// Unwrap returns every PE's *PEError, then the errors of the world's end.
func (e *RunError) Unwrap() []error {
	errs := make([]error, 0, len(e.PEs)+len(e.End))
	for _, pe := range e.PEs {
		errs = append(errs, pe)
	}
	return append(errs, e.End...)
}

// ranges writes increasing PE ids as ranges: "0-3, 5, 7-9".
func ranges(pes []int) string {
	var b strings.Builder
	for i := 0; i < len(pes); {
		j := i
		for j+1 < len(pes) && pes[j+1] == pes[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(pes[i]))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(pes[j]))
		}
		i = j + 1
	}
	return b.String()
}
