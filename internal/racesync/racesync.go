// Package racesync shows the race detector the order that signal words
// in symmetric memory give. The host backend's partitions are mapped
// outside Go's memory, where the detector sees no synchronisation in
// atomic operations: a goroutine that publishes only through a signal (a
// protoactor actor replying through a Mailbox) looked unordered with what
// followed the signal's reader, such as the world's Close. Code that
// updates a signal word calls Release first; code that has seen one calls
// Acquire after. Both touch one word of Go memory in race builds
// (over-ordering: every acquire follows every earlier release) and
// nothing otherwise.
package racesync
