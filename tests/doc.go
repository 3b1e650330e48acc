// Package tests runs symchan's suites (package conformance: pgas and
// signals, actors, the GPU API) against every backend of the repository:
// the one named by SYMCHAN_TEST_BACKEND (default "host"), so every backend
// passes the very same tests:
//
//	go test ./tests/                                   # host backend
//	SYMCHAN_TEST_BACKEND=cuda ./tests.test             # a binary built with -tags cuda
//	SYMCHAN_TEST_BACKEND=nvshmem SYMCHAN_TEST_PROCS=2 symrun -n 2 ./tests.test
//
// SYMCHAN_TEST_MAX_PES bounds the world sizes (the GPU count, for the cuda
// backend); SYMCHAN_TEST_PROCS says how many processes run the suites at
// once, one PE each; SYMCHAN_TEST_LARGE_WORLDS=1 adds worlds of 128 and
// 1024 PEs to the device-mailbox and kernel-actor tests
// (conformance.Options):
//
//	SYMCHAN_TEST_BACKEND=cuda SYMCHAN_CUDA_SHARE_GPUS=1 SYMCHAN_TEST_LARGE_WORLDS=1 \
//		./tests.test -test.run 'TestConformance/GPU/(DeviceMailboxFanIn|KernelActorEcho)'

package tests
