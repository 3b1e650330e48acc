package bench

import "slices"

// medianOf is the median of xs (the upper one of an even count); it sorts
// xs.
func medianOf(xs []float64) float64 {
	slices.Sort(xs)
	return xs[len(xs)/2]
}
