package pgas

import (
	"os"
	"regexp"
	"strconv"
	"testing"
)

// The collectives table is complete: every kind has a name of its own,
// and every device collective symchan.cuh defines (SYMCHAN_COLL_*, but
// the flag SYMCHAN_COLL_BLOCKING) is the device form of exactly one kind.
func TestCollectivesTable(t *testing.T) {
	names := map[string]bool{}
	for k, c := range collectives {
		if c.name == "" || names[c.name] {
			t.Errorf("kind %d: name %q empty or taken", k, c.name)
		}
		names[c.name] = true
	}
	src, err := os.ReadFile("../kernels/symchan.cuh")
	if err != nil {
		t.Fatal(err)
	}
	defs := regexp.MustCompile(`(?m)^#define (SYMCHAN_COLL_\w+) (\d+)$`).FindAllStringSubmatch(string(src), -1)
	if len(defs) == 0 {
		t.Fatal("symchan.cuh defines no SYMCHAN_COLL_*")
	}
	for _, d := range defs {
		code, _ := strconv.ParseUint(d[2], 10, 64)
		if d[1] == "SYMCHAN_COLL_BLOCKING" {
			// A flag or-ed into a kind: a bit of its own, above every
			// kind's code and pgas's.
			if code&(code-1) != 0 || code <= collRefused {
				t.Errorf("%s = %d, want a power of two above %d", d[1], code, collRefused)
			}
			continue
		}
		var kinds []syncKind
		for k, c := range collectives {
			if c.device == code {
				kinds = append(kinds, syncKind(k))
			}
		}
		if len(kinds) != 1 || code == noDevice || code >= hostKinds {
			t.Errorf("%s = %d: the device form of %v, want exactly one kind (and a code in [1, %d))", d[1], code, kinds, hostKinds)
		}
		if sk, ok := deviceKind(code); !ok || len(kinds) == 1 && sk != kinds[0] {
			t.Errorf("deviceKind(%s) = %v, %v", d[1], sk, ok)
		}
	}
}
