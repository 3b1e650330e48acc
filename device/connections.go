package device

// EnvMaxConnections is the CUDA driver's setting of how many hardware
// work queues a context's streams share (8 when unset). Streams beyond
// that share queues, and work on a stream that shares a queue with a
// resident kernel (a kernel actor, which runs until it is stopped) waits
// behind it, even when the resident kernel needs that work to go on. When
// the process has not set it, binaries built with -tags cuda set it to
// MaxConnections before any context exists (the driver reads it when it
// creates one).
const EnvMaxConnections = "CUDA_DEVICE_MAX_CONNECTIONS"

// MaxConnections is the largest value the driver takes for
// EnvMaxConnections, and the one this package sets.
const MaxConnections = 32
