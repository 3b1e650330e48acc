// Package actors makes every PE an actor: typed channels, futures and raw
// mailboxes between PEs, built only on the pgas and signals APIs, so they
// run unchanged on every backend.
//
// # Mailboxes
//
// A [Mailbox] is created collectively ([NewMailbox]) and gives every PE an
// inbox in its own partition of the symmetric heap: L = min([Lanes], N)
// lanes, each a ring of K slots of S bytes, each slot with a uint64 signal
// word that holds the sequence number of the last message put there. Where
// L = N on device memory (worlds of up to 64 PEs by default), lane s is
// sender s's, the layout kernels read. Where L < N, and on host memory, a
// sender's first message to a PE claims a lane there with one
// atomic fetch-add on the inbox's control word, no collective, and keeps
// it; every slot it sends names it. Once all L lanes of an inbox are
// claimed, a further sender's sends there fail with [ErrNoLane] (nothing
// is sent; it can still Close). A send is one
// put-with-signal of the slot (header and payload) with SignalSet of the
// message's sequence number. On GPUs it is pgas.PutSignalUnordered, with
// no fence between data and word (one fewer system-scope fence a
// message): the slot is sealed, its header holding a hash of the sequence
// number, header and payload, and a receiver that reads a slot whose data
// has not all landed reads it again until the seal agrees. The receiver
// waits with WaitUntilSome (vector form: each
// word against the sequence number due in its slot) over its L·K slot
// words, copies out every message that is ready, in each sender's order,
// and returns the slots to their senders with SignalAdd on a credit word in
// the sender's partition, in batches of K/2: a sender only ever waits
// while more than K/2 of its messages are unread at the receiver. A sender
// with no free slot towards a receiver waits for credit (or, with TrySend,
// fails with [ErrFull]); it never overwrites an unread slot.
//
// Where partitions are host memory (the host backend), each slot word
// starts a 64-byte cache line of its own, and the slot's header and a
// payload of up to 32 bytes travel in that line with the signal: the send
// is still one PutSignal, whose data is the rest of the line (a larger
// payload is put into the slot first, with a Fence before the line). A
// receiver then learns of a small message and reads it with one
// cache-line transfer between cores. It reads its words in place: one
// load of each claimed lane's next word, instead of a wait over all its
// words,
// and where none is ready it parks with pgas.Park until a write lands
// among its words (the backend polls first with pgas.BlockSpin, up to
// 50 µs). The sender's PutSignal wakes it and hands over its processor as
// a send on a Go channel does; Park ends as a pgas wait would on the
// context's end or a PE failing or finishing. Futures' reply words are
// laid out the same way (a reply of up to 48 bytes beside its word, one
// PutSignalIf), and an awaiting goroutine parks on its reply word.
//
// Memory: every PE holds L·K·(S+8) bytes of slots and words
// (L·K·(S+64) on host memory), N·8 bytes of credit words and N bits of
// closed bits per Mailbox or Chan, for N PEs and L = min(Lanes, N) lanes. The defaults
// (L = 64, K = 16, S = 1 KiB) cost 16.1 KiB per lane (17 KiB on host
// memory): 129 KiB per PE with 8 PEs, about 1 MiB from 64 PEs on,
// however large the world, and 32 KiB of credit words at 4096 PEs.
// The receiving side also keeps about 112 bytes of Go memory per slot
// (196 where words are device memory: its wait's index, fetched header
// and report) and 80 per lane, and each PE about 24 bytes per PE of the
// world (its outboxes' pointers, the list of senders a blocking receive
// waits for, its closed bits), plus an outbox per PE it sends to; a
// mailbox that would not fit the machine's memory fails to be made.
//
// Messages larger than a slot are cut into chunks that travel through
// consecutive slots of the same sender and are joined by the receiver
// (up to [MaxMessage], default 64 MiB). A message whose Send is cancelled
// half-way is discarded whole by the receiver; Send reports the error.
//
// # Guarantees
//
//   - FIFO per (sender, receiver): messages from one PE to another are
//     received in the order their Sends returned.
//   - Exactly once: every message whose Send returned nil is received once,
//     unless the receiving side stops receiving; none is duplicated.
//   - Backpressure: a sender is held back by credits, never by overwriting.
//   - Closing: Close closes the calling PE's sending side of a Mailbox or
//     Chan towards every PE (a marker after its last message, or, towards
//     a PE where it has no lane, its bit in that inbox's closed bits, then
//     one add on its control word). A PE's inbox
//     reports ErrClosed once every PE has closed its side and every message
//     was received, like a Go channel after close and drain.
//   - Finished senders: a blocking Recv ends with pgas.ErrNoWriters once
//     every PE that could still send to it has returned without closing
//     its side. This PE counts as a sender once it has sent to itself: a
//     first message to itself from another of its goroutines, sent after
//     the other PEs returned, comes too late for a Recv already waiting.
//   - After the world: a Mailbox, Chan or Future kept past the end of its
//     world returns pgas.ErrWorldEnded from its sends, receives (C's Err
//     included), Close and Await; Stats still reads.
//
// # Channels and futures
//
// [Chan] is a typed Mailbox: fixed-size plain types travel as raw bytes
// (no reflection per message), anything else through a [Codec]: the
// package's [BytesCodec] and [StringCodec], protobridge.Codec for protobuf
// messages, or the user's own. [Future] is a one-shot reply slot: the
// request carries its [ReplyTo]; the reply is one PutSignal into it.
//
// The protoactor-go bridge lives in package actors/protobridge.
package actors
