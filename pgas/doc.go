// Package pgas is symchan's partitioned global address space runtime, with
// the semantics of OpenSHMEM 1.5 and NVSHMEM.
//
// A program is SPMD: [Run] starts N processing elements (PEs) on a backend
// and calls the same function on each. Every PE owns one partition of a
// symmetric heap; a collective allocation ([Alloc], [AllocZeroed],
// [AllocAligned]) returns a [Sym] that names the same offset in every
// partition, so any PE can reach any other PE's copy with one-sided
// operations:
//
//   - RMA: [Put], [Get], [P], [G] and the non-blocking [PutNBI], [GetNBI];
//   - atomics on 32- and 64-bit integers: [AtomicFetch], [AtomicAdd],
//     [OpCompareSwap] and the rest;
//   - signals: [PutSignal] (data, then a signal word updated with
//     [SignalSet] or [SignalAdd]), [SignalOp], [SignalFetch],
//     [SignalWaitUntil];
//   - ordering: [PE.Fence] orders delivery to each PE, [PE.Quiet] completes
//     everything outstanding;
//   - synchronisation and collectives on teams: [Team.Barrier], [Team.Sync],
//     [Broadcast], [ReduceAll], [FCollect], [AllToAll].
//
// Point-to-point waits over arrays of words (wait_until_all/any/some and
// their vector forms, tests, status masks) live in package signals, built on
// [Wait].
//
// Every call that can block takes a context.Context; cancellation ends the
// wait with an error. A PE whose function returns an error or panics makes
// every other PE's blocking calls return an error that names it (a
// [*PEError]), so a failure never turns into a hang.
//
// Backends register themselves like database/sql drivers ([Register]). The
// "host" backend is built in and is the default: PEs are goroutines of one
// process and each partition is ordinary memory. Others (cuda, nvshmem)
// live in their own packages and are selected with [Config.Backend] or the
// SYMCHAN_BACKEND environment variable.
package pgas
