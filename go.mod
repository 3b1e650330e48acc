module github.com/symchan/symchan

go 1.26.0

require golang.org/x/sync v0.24.0

require github.com/asynkron/protoactor-go v0.0.0-20240822202345-3c0e61ca19c9 // indirect
