package actors

import (
	"encoding/binary"
	"fmt"

	"github.com/symchan/symchan/internal/abi"
)

// DeviceMailbox is a Mailbox's layout for kernels: what struct
// symchan_mailbox of kernels/symchan.cuh holds, so that a kernel can send
// to and receive from PEs with the Go side's wire format (messages of any
// size). Offsets are symmetric byte offsets into every partition.
//
// On one PE, a destination is sent to either by Go or by one device
// thread, and the inbox is received from either by Go or by one device
// thread: both sides of a pair share the sequence numbers.
type DeviceMailbox struct {
	WordsOff  int64 // n·k uint64 slot words
	SlotsOff  int64 // n·k slots
	CreditOff int64 // n uint64 credit words
	NPEs      int
	Slots     int // k, per sender
	SlotSize  int // bytes per slot: a 24-byte header (with the seal) and the payload
}

// DeviceMailboxSize is the size of struct symchan_mailbox.
const DeviceMailboxSize = abi.SizeofMailbox

// DeviceOutboxSize is the size of struct symchan_mbox_out
// (kernels/symchan.cuh): a device sender's state towards one destination,
// which kernels keep in device memory they allocate (a kernel that sends
// to every PE keeps an array of one per PE).
const DeviceOutboxSize = abi.SizeofMboxOut

// DeviceInboxSize is the size of a device receiver's state, struct
// symchan_mbox_in, in a world of n PEs (SYMCHAN_MBOX_IN_SIZE): two words
// per sender. Nothing bounds n but the memory.
func DeviceInboxSize(n int) int64 { return 16 * int64(n) }

// Device returns the mailbox's layout for kernels. It describes mailboxes
// on backends whose partitions are device memory (the GPU backends); on
// host memory the slot words are laid out one per cache line instead, and
// no kernel runs there. Kernels find a sender's slots by its id, so only a
// mailbox with a lane per PE (Lanes at least the PE count) has a layout
// for them: for one with fewer lanes Device fails with ErrBadArg, as it
// does for a zero Mailbox.
func (m *Mailbox) Device() (DeviceMailbox, error) {
	if m.zero() {
		return DeviceMailbox{}, errZero
	}
	if m.lanes < m.n {
		return DeviceMailbox{}, fmt.Errorf("%w: a mailbox of %d lanes for %d PEs has no layout for kernels, which find a sender's slots by its id: make it with Lanes(%d)", ErrBadArg, m.lanes, m.n, m.n)
	}
	return DeviceMailbox{
		WordsOff: m.w.sym.Offset(), SlotsOff: m.slots.Offset(), CreditOff: m.credit.Offset(),
		NPEs: m.n, Slots: m.k, SlotSize: m.s,
	}, nil
}

// Bytes encodes d as struct symchan_mailbox (little endian), ready to
// copy into device memory.
func (d DeviceMailbox) Bytes() []byte {
	b := make([]byte, DeviceMailboxSize)
	binary.LittleEndian.PutUint64(b[abi.OffsetofMailboxWordsOff:], uint64(d.WordsOff))
	binary.LittleEndian.PutUint64(b[abi.OffsetofMailboxSlotsOff:], uint64(d.SlotsOff))
	binary.LittleEndian.PutUint64(b[abi.OffsetofMailboxCreditOff:], uint64(d.CreditOff))
	binary.LittleEndian.PutUint32(b[abi.OffsetofMailboxNpes:], uint32(d.NPEs))
	binary.LittleEndian.PutUint32(b[abi.OffsetofMailboxK:], uint32(d.Slots))
	binary.LittleEndian.PutUint32(b[abi.OffsetofMailboxSlotSize:], uint32(d.SlotSize))
	return b
}

// DeviceSystem is a System's reply slots laid out for kernels: what struct
// symchan_replies of kernels/symchan.cuh holds, so that a kernel can reply
// to a ReplyTo (symchan_reply) and wait for the reply to a future made in
// Go (symchan_await_reply). Offsets are symmetric byte offsets. It
// describes device memory (the GPU backends), as DeviceMailbox does.
type DeviceSystem struct {
	WordsOff  int64 // per slot, a uint64 word: generation<<2 | state
	DataOff   int64 // per slot, SlotBytes bytes: the reply's length, then the reply
	Futures   int   // slots per PE
	SlotBytes int
	ReplySize int // the most bytes a reply may have
}

// DeviceSystemSize is the size of struct symchan_replies.
const DeviceSystemSize = abi.SizeofReplies

// Device returns the system's reply-slot layout for kernels (the zero
// DeviceSystem for a zero System).
func (s *System) Device() DeviceSystem {
	if s == nil || s.pe == nil {
		return DeviceSystem{}
	}
	return DeviceSystem{WordsOff: s.w.sym.Offset(), DataOff: s.data.Offset(), Futures: s.cfg.futures, SlotBytes: s.slotBytes(), ReplySize: s.cfg.replySize}
}

// Bytes encodes d as struct symchan_replies (little endian).
func (d DeviceSystem) Bytes() []byte {
	b := make([]byte, DeviceSystemSize)
	binary.LittleEndian.PutUint64(b[abi.OffsetofRepliesWordsOff:], uint64(d.WordsOff))
	binary.LittleEndian.PutUint64(b[abi.OffsetofRepliesDataOff:], uint64(d.DataOff))
	binary.LittleEndian.PutUint32(b[abi.OffsetofRepliesFutures:], uint32(d.Futures))
	binary.LittleEndian.PutUint32(b[abi.OffsetofRepliesSlotBytes:], uint32(d.SlotBytes))
	binary.LittleEndian.PutUint32(b[abi.OffsetofRepliesReplySize:], uint32(d.ReplySize))
	return b
}
