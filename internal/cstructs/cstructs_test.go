package cstructs

import "testing"

// Layouts follow C's rules: natural alignment, padding to the largest
// member, arrays sized by #define expressions, nested structs.
func TestParse(t *testing.T) {
	h, err := Parse(`
#define N 4
struct a {
	char c;          // 0
	unsigned long long u; // 8
	int i, j[2 * N + 1]; // 16, 20
	bool b;          // 56
};
struct b {
	struct_pad x;
};
`)
	if err != nil || h.Defines["N"] != 4 || h.Structs["a"].Size != 64 || h.Unlaid["b"] == nil {
		t.Fatalf("a struct with a field of an unknown type: %v, %+v; want it unlaid and the rest read", err, h)
	}
	if _, err := GoConsts("p", "x.h", h, [][2]string{{"N", "N"}, {"a", "A"}}); err != nil {
		t.Errorf("GoConsts of what could be laid out: %v", err)
	}
	if _, err := GoConsts("p", "x.h", h, [][2]string{{"b", "B"}}); err == nil {
		t.Error("GoConsts of a struct with a field of an unknown type: no error")
	}
	h, err = Parse(`
#define N 4
struct a {
	char c;
	const unsigned long long *p, u;
	int i, j[2 * N + 1];
	bool b;
};
struct outer {
	int k;
	a inner;
	unsigned tail[N];
};
`)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		s      string
		size   int
		fields map[string]int
	}{
		{"a", 72, map[string]int{"c": 0, "p": 8, "u": 16, "i": 24, "j": 28, "b": 64}},
		{"outer", 96, map[string]int{"k": 0, "inner": 8, "tail": 80}},
	} {
		s := h.Structs[c.s]
		if s.Size != c.size {
			t.Errorf("sizeof(%s) = %d, want %d", c.s, s.Size, c.size)
		}
		for _, f := range s.Fields {
			if want, ok := c.fields[f.Name]; ok && f.Offset != want {
				t.Errorf("offsetof(%s, %s) = %d, want %d", c.s, f.Name, f.Offset, want)
			}
		}
	}
	if h.Defines["N"] != 4 {
		t.Errorf("N = %d", h.Defines["N"])
	}
}
