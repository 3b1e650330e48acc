package testhelp

import (
	"context"
	"reflect"
	"slices"
	"testing"
	"time"
)

// A Zero is a value for ZeroValues: a zero or nil handle, named, and the
// methods whose documented zero answer is no error.
type Zero struct {
	Name  string
	V     any
	NilOK []string
}

// ZeroValues runs ZeroMethods on each value, a subtest each.
func ZeroValues(t *testing.T, zeros ...Zero) {
	t.Helper()
	for _, z := range zeros {
		t.Run(z.Name, func(t *testing.T) { ZeroMethods(t, z.V, z.NilOK...) })
	}
}

// ZeroMethods calls every exported method of v (a pointer to a zero value,
// or a zero value) with zero arguments — a context that ends in 100 ms
// where one is asked for, no variadic arguments — and fails t for each
// one that panics, and for each whose last result is an error and that
// returned none, unless its name is in nilOK (a method whose documented
// zero answer is no error). Methods without an error result may answer
// anything: their docs say what a zero value answers.
func ZeroMethods(t *testing.T, v any, nilOK ...string) {
	t.Helper()
	rv := reflect.ValueOf(v)
	ctxType := reflect.TypeFor[context.Context]()
	errType := reflect.TypeFor[error]()
	if rv.NumMethod() == 0 {
		t.Fatalf("%T has no exported methods", v)
	}
	for i := range rv.NumMethod() {
		m, name := rv.Method(i), rv.Type().Method(i).Name
		mt := m.Type()
		args := make([]reflect.Value, mt.NumIn())
		for j := range args {
			in := mt.In(j)
			switch {
			case in == ctxType:
				ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
				defer cancel()
				args[j] = reflect.ValueOf(ctx)
			case mt.IsVariadic() && j == len(args)-1:
				args[j] = reflect.MakeSlice(in, 0, 0)
			default:
				args[j] = reflect.Zero(in)
			}
		}
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("(%T).%s on a zero value panicked: %v", v, name, r)
				}
			}()
			var out []reflect.Value
			if mt.IsVariadic() {
				out = m.CallSlice(args)
			} else {
				out = m.Call(args)
			}
			n := mt.NumOut()
			if n > 0 && mt.Out(n-1) == errType && out[n-1].IsNil() && !slices.Contains(nilOK, name) {
				t.Errorf("(%T).%s on a zero value returned no error", v, name)
			}
		}()
	}
}
