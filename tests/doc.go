// Package tests holds symchan's backend-agnostic suites: the PGAS
// conformance suite (pgas and signals) and, later, the actors suite. They
// use only the public API and run on the backend named by
// SYMCHAN_TEST_BACKEND (default "host"), so every backend passes the very
// same tests:
//
//	go test ./tests/                              # host backend
//	SYMCHAN_TEST_BACKEND=cuda ./tests.test        # a binary built with -tags cuda
package tests
