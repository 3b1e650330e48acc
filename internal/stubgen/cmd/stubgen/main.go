// Command stubgen writes the !TAG twin of the package in the current
// directory (see package internal/stubgen):
//
//	//go:generate go run github.com/symchan/symchan/internal/stubgen/cmd/stubgen -tag cuda -err ErrNoCUDA -o stubs_nocuda.go
package main

import (
	"flag"
	"log"

	"github.com/symchan/symchan/internal/stubgen"
)

func main() {
	tag := flag.String("tag", "cuda", "the build tag whose files are twinned")
	errName := flag.String("err", "ErrNoCUDA", "the error the stubs return")
	out := flag.String("o", "stubs_nocuda.go", "the file to write")
	flag.Parse()
	if err := stubgen.Write(".", *tag, *errName, *out); err != nil {
		log.Fatal(err)
	}
}
