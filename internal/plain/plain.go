// Package plain says which Go types are plain memory: the element types a
// symmetric allocation (pgas.Sym) accepts and actors sends without a codec.
package plain

import (
	"reflect"
	"sync"
)

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

// types caches Is by type for Of.
var types sync.Map // reflect.Type → bool

// Of is Is for T, for paths that ask on every message (actors' NewFuture
// and Reply): the scalars without reflection, other types once.
func Of[T any]() bool {
	var z T
	switch any(z).(type) {
	case bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, uintptr,
		float32, float64, complex64, complex128:
		return true
	}
	t := reflect.TypeFor[T]()
	if v, ok := types.Load(t); ok {
		return v.(bool)
	}
	ok := Is(t)
	types.Store(t, ok)
	return ok
}
