// Package racesync shows the race detector the order that signal words
// in symmetric memory give. The host backend's partitions are mapped
// outside Go's memory, where the detector sees no synchronisation in
// atomic operations: a goroutine that publishes only through a signal (a
// protoactor actor replying through a Mailbox) looked unordered with what
// followed the signal's reader, such as the world's Close. The host
// backend calls Release before each signal or atomic update and Acquire
// after each wait and fetch; code that reads signal words itself (actors'
// receive and reply fast paths) calls Acquire after seeing one. Both touch one word of Go memory in race builds
// (over-ordering: every acquire follows every earlier release) and
// nothing otherwise.
package racesync
