//go:build unix && !linux

package host

const mapNoReserve = 0

func adviseHuge([]byte) {}
