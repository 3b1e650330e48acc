package tests

// The suites run on any registered backend; the cuda one is real in
// binaries built with -tags cuda.
import _ "github.com/symchan/symchan/pgas/cuda"
