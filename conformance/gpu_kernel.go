package conformance

import (
	"encoding/binary"
	"fmt"

	"github.com/symchan/symchan/actors"
	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/pgas"
)

// region is one part of a test kernel's device memory: its size, and the
// bytes it starts with (the rest is zero).
type region struct {
	size int64
	init []byte
}

// Sizes of the device-side mailbox state a test kernel keeps in a world
// of n PEs: struct symchan_mbox_out for every destination, struct
// symchan_mbox_in.
func mboxOutBytes(n int) int64 { return actors.DeviceOutboxSize * int64(n) }
func mboxInBytes(n int) int64  { return actors.DeviceInboxSize(n) }

// runKernel runs kernel name, one block of threads threads, on pe's GPU
// over device memory laid out as regions: its arguments are the PE's heap
// descriptor, then what args makes of the regions' addresses. It waits for
// the kernel and returns region result's bytes.
func runKernel(pe *pgas.PE, name string, threads int, regions []region, args func(at []device.Ptr) []uint64, result int) ([]byte, error) {
	g, err := pe.GPU()
	if err != nil {
		return nil, err
	}
	c := g.Context()
	var size int64
	for _, r := range regions {
		size += r.size
	}
	mem, err := c.Alloc(size)
	if err != nil {
		return nil, err
	}
	defer c.Free(mem)
	st, err := c.NewStream()
	if err != nil {
		return nil, err
	}
	defer st.Destroy()
	if err := st.Memset(mem, 0, size); err != nil {
		return nil, err
	}
	at := make([]device.Ptr, len(regions))
	next := mem
	for i, r := range regions {
		at[i], next = next, next+device.Ptr(r.size)
		if err := st.CopyIn(at[i], r.init); err != nil {
			return nil, err
		}
	}
	fn, err := kernelOf(g, name)
	if err != nil {
		return nil, err
	}
	if err := st.Launch(fn, device.D1(1), device.D1(threads), 0, append([]uint64{uint64(g.HeapDescriptor())}, args(at)...)...); err != nil {
		return nil, err
	}
	if err := st.Sync(); err != nil {
		return nil, err
	}
	out := make([]byte, regions[result].size)
	return out, st.CopyOut(out, at[result])
}

// kernelStatus is the first word of a test kernel's result: 0, or where it
// failed, reported as an error naming the kernel.
func kernelStatus(name string, b []byte, err error) error {
	if err != nil {
		return err
	}
	if s := binary.LittleEndian.Uint64(b); s != 0 {
		return fmt.Errorf("kernel %s failed: %d", name, s)
	}
	return nil
}
