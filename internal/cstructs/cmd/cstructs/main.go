// Command cstructs writes the layout of C structs of a header as Go
// constants (see package internal/cstructs):
//
//	//go:generate go run github.com/symchan/symchan/internal/cstructs/cmd/cstructs -in symchan.cuh -o ../internal/abi/layout.go -pkg abi symchan_heap=Heap …
package main

import (
	"flag"
	"log"
	"os"
	"strings"

	"github.com/symchan/symchan/internal/cstructs"
)

func main() {
	in := flag.String("in", "", "the C header")
	out := flag.String("o", "", "the Go file to write")
	pkg := flag.String("pkg", "", "its package")
	flag.Parse()
	src, err := os.ReadFile(*in)
	if err != nil {
		log.Fatal(err)
	}
	h, err := cstructs.Parse(string(src))
	if err != nil {
		log.Fatal(err)
	}
	var names [][2]string
	for _, a := range flag.Args() {
		c, g, ok := strings.Cut(a, "=")
		if !ok {
			log.Fatalf("cstructs: %q: want cname=GoName (a struct or a #define)", a)
		}
		names = append(names, [2]string{c, g})
	}
	b, err := cstructs.GoConsts(*pkg, *in, h, names)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, b, 0o644); err != nil {
		log.Fatal(err)
	}
}
