// Package pgas is symchan's partitioned global address space runtime, with
// the semantics of OpenSHMEM 1.5 and NVSHMEM.
//
// A program is SPMD: [Run] starts N processing elements (PEs) on a backend
// and calls the same function on each; [Start] does the same in the
// background, for a service that holds its world for its whole life and
// stops it with [Handle.Stop]. Every PE owns one partition of a
// symmetric heap; a collective allocation ([Alloc], [AllocZeroed],
// [AllocAligned]) returns a [Sym] that names the same offset in every
// partition, so any PE can reach any other PE's copy with one-sided
// operations:
//
//   - RMA: [Put], [Get], [P], [G] and the non-blocking [PutNBI], [GetNBI];
//     strided [IPut], [IGet] and their NBI forms; [Ptr] for direct access
//     where a partition is host memory of this process;
//   - atomics on 32- and 64-bit integers: [AtomicFetch], [AtomicAdd],
//     [AtomicCompareSwap] and the rest; fetch, set and swap on float32 and
//     float64; non-blocking fetching forms ([AtomicFetchAddNBI], …);
//   - signals: [PutSignal] (data, then a signal word updated with
//     [SignalSet] or [SignalAdd]), [SignalOp], [SignalFetch],
//     [SignalWaitUntil]; and an extension of ours, [PutSignalIf] (a
//     put-with-signal only if a compare-and-swap on the signal word
//     claims it first: one routine on GPUs);
//   - ordering: [PE.Fence] orders delivery to each PE, [PE.Quiet] completes
//     everything outstanding;
//   - mutual exclusion: [Lock], a FIFO lock over the PEs ([NewLock]);
//   - synchronisation and collectives on teams: [Team.Barrier], [Team.Sync],
//     [Broadcast], [ReduceAll], [ReduceAllComplex], [FCollect], [Collect],
//     [AllToAll], [AllToAlls]; teams split off with [Team.Split],
//     [Team.SplitConfig] and [Team.Split2D];
//   - stream-ordered forms ([NewStream]): RMA, signals, waits and atomics
//     ([PutSignalOnStream], …) and the team collectives
//     ([BarrierOnStream], [BroadcastOnStream], [ReduceAllOnStream],
//     [FCollectOnStream], [AllToAllOnStream]), which on the GPU backends
//     run on the device in one sequence with kernels' team collectives;
//   - the heap: [Realloc] and [Free] beside the allocations, and device
//     memory that another library allocated made symmetric
//     ([RegisterSymmetric], [UnregisterSymmetric]; the GPU backends).
//
// Point-to-point waits over arrays of words (wait_until_all/any/some and
// their vector forms, tests, status masks) live in package signals, built on
// [Wait].
//
// # Guarantees under cancellation, failure and misuse
//
// Every call that can block takes a context.Context; cancellation ends the
// wait with an error. A PE whose function returns an error or panics (or
// one of its [PE.Go] goroutines panics) makes every other PE's blocking
// calls return an error that names it (a [*PEError]), and cancels every
// PE's context, so a failure never turns into a hang.
//
// A barrier, collective, collective allocation or team split either
// completes on every member of the team or fails on every member with the
// same [*CollectiveError] — when one member's context ends before, while
// or just as the others arrive, when a PE fails, or when the members make
// different calls (an allocation against a barrier: ErrCollectiveMismatch).
// The team is then broken: every later call on it returns that error
// (ErrTeamBroken), so no barrier returns early and no allocation hands out
// different offsets. For the world team this means no more collective
// allocations. Arguments that are invalid on some members only make every
// member's call fail, and leave the team usable. A member that will never
// join (it returned or destroyed the team) ends the others' call with the
// same *CollectiveError, wrapping ErrCollectiveMismatch.
//
// A wait that names the PEs able to satisfy it ([WaitSet.From]; actors'
// Recv, Send on a full inbox and Future.Await do) ends with ErrNoWriters
// once all of them have returned, instead of waiting forever. PEs of other
// processes are not seen to return: such a wait ends with its context.
//
// Sizes are checked before anything is allocated: a heap or world the
// machine cannot hold is an error from [Run] naming the setting to lower.
//
// # Concurrency and misuse
//
// A PE may be used from several goroutines at once for one-sided
// operations (RMA, atomics, signals) and waits. Collective calls
// (allocation, Realloc, Free, NewLock, barriers, collectives, splits)
// must be made by one goroutine of a PE at a time, in the same order on
// every PE.
//
// [Free] returns on no member before every member's operations on the
// allocation already under way are over, so an operation racing Free, from
// any goroutine of any PE, either completes in the old allocation or fails
// with ErrBadSym; it never lands in the next allocation of the same
// bytes. A wait on an allocation freed meanwhile
// fails too. What cannot be caught: a slice returned by [Local] is plain
// memory, and writes through it after Free land in whatever allocation
// takes those bytes next; after Run returns, the host backend's partitions
// are unmapped and such a slice faults. Keep Local slices no longer than
// their Sym.
//
// Backends register themselves like database/sql drivers ([Register]); the
// contract they implement is package pgas/driver, which programs never
// need. The "host" backend (package pgas/host) is built in and is the
// default: PEs are goroutines of one process and each partition is memory
// outside the Go heap. Others (pgas/cuda, pgas/nvshmem) live in their own
// packages and are selected with [Config.Backend] or the SYMCHAN_BACKEND
// environment variable; on them [PE.GPU] gives a program that launches its
// own kernels the PE's [GPU].
package pgas
