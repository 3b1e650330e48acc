//go:build !race

package racesync

// Release does nothing outside race builds.
func Release() {}

// Acquire does nothing outside race builds.
func Acquire() {}
