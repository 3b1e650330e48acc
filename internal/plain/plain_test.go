package plain

import (
	"reflect"
	"testing"
)

type point struct {
	X, Y float64
	Tag  [4]byte
}

type named struct {
	Name string
}

// Of agrees with Is, asked again (the cached answer) and for scalars,
// arrays, structs and types with pointers; the spec is plain memory:
// fixed-size bytes, no pointers.
func TestOfAgreesWithIs(t *testing.T) {
	for _, c := range []struct {
		name string
		of   func() bool
		typ  reflect.Type
		want bool
	}{
		{"uint64", Of[uint64], reflect.TypeFor[uint64](), true},
		{"complex128", Of[complex128], reflect.TypeFor[complex128](), true},
		{"array of int32", Of[[3]int32], reflect.TypeFor[[3]int32](), true},
		{"struct of numbers", Of[point], reflect.TypeFor[point](), true},
		{"string", Of[string], reflect.TypeFor[string](), false},
		{"struct with a string", Of[named], reflect.TypeFor[named](), false},
		{"pointer", Of[*int], reflect.TypeFor[*int](), false},
		{"slice", Of[[]byte], reflect.TypeFor[[]byte](), false},
	} {
		for range 2 {
			if got := c.of(); got != c.want || Is(c.typ) != c.want {
				t.Errorf("%s: Of %v, Is %v; want %v", c.name, got, Is(c.typ), c.want)
			}
		}
	}
}
