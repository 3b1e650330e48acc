// Package plain says which Go types are plain memory: the element types a
// symmetric allocation (pgas.Sym) accepts and actors sends without a codec.
package plain

import "reflect"

// Is reports whether values of t are fixed-size bytes with no pointers
// (numbers, and arrays and structs of them), so they can be copied between
// partitions as raw memory.
func Is(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return true
	case reflect.Array:
		return Is(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if !Is(t.Field(i).Type) {
				return false
			}
		}
		return true
	}
	return false
}
